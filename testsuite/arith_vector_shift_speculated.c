/* At -O2 the loop vectorizer computes `b[i] < 32 ? a[i] >> b[i] : 0` four
 * lanes at a time: a vector shift before the test, and a vector select
 * that discards the lanes whose amount is out of range. As for a scalar
 * shift chosen by a select, those lanes are poison, not undefined
 * behaviour, and the C program shifts only in range: no overshift. The
 * shift of the sum is the program's own, and may overshift; the test on
 * its result is a select at -O2.
 * cc-args: -O2
 * expect-completed: 1
 * expect-error: overshift 26 1
 * expect-tests: 2
 */
#include <klee/klee.h>

unsigned a[16], b[16], out[16];

int main(void) {
  klee_make_symbolic(a, sizeof a, "a");
  klee_make_symbolic(b, sizeof b, "b");
  for (int i = 0; i < 16; i++)
    out[i] = b[i] < 32 ? a[i] >> b[i] : 0;
  unsigned s = 0;
  for (int i = 0; i < 16; i++)
    s ^= out[i];
  unsigned k = klee_int("k");
  s = s << (k & 63);
  return s == 12345;
}
