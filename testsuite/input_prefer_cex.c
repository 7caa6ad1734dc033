/* klee_prefer_cex asks for lowercase letters in every byte of s (and for
 * s[3] first 'q', then 'r'), which changes the tests' inputs but never the
 * paths: s[0] == 'x' or not (2), then s[1] < 'a' or not (2 more on the
 * second side). tests/klee_api.rs checks that each test's bytes are
 * lowercase wherever its path allows, and s[3] 'q'.
 * expect-completed: 3
 * expect-tests: 3
 */
#include <klee/klee.h>

int main(void) {
  char s[4];
  klee_make_symbolic(s, sizeof s, "s");
  for (int i = 0; i < 4; i++)
    klee_prefer_cex(s, (s[i] >= 'a') & (s[i] <= 'z'));
  klee_prefer_cex(s, s[3] == 'q');
  klee_prefer_cex(s, s[3] == 'r'); /* unmet: 'q' was asked first */
  klee_prefer_cex(s, s[0] == 'x'); /* met where the path allows */
  if (s[0] == 'x')
    return 1;
  if (s[1] < 'a')
    return 2;
  return 3;
}
