/* strcmp and strncmp of a symbolic string against a literal. The program
 * branches on the sign of the result and on the second byte, so every one
 * of the 3 x 2 admissible strings is its own path, however strcmp splits.
 * expect-completed: 6
 * expect-tests: 6
 */
#include <string.h>
#include <klee/klee.h>

int main(void) {
  char s[3];
  klee_make_symbolic(s, sizeof s, "s");
  klee_assume((s[0] == 'a') | (s[0] == 'z') | (s[0] == 'A'));
  klee_assume((s[1] == 'b') | (s[1] == 'c'));
  s[2] = '\0';
  int r = strcmp(s, "ab");
  int code;
  if (r < 0)
    code = 1;
  else if (r > 0)
    code = 2;
  else
    code = 3;
  if (s[1] == 'b')
    code += 10;
  /* Decided on every path: strncmp over one byte only looks at s[0]. */
  if (strncmp(s, "a", 1) == 0)
    code += 100;
  return code;
}
