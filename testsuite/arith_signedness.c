/* Signed versus unsigned comparisons and extensions of the same byte and
 * word: equivalent tests after the first are decided, so only the distinct
 * classes remain.
 * expect-completed: 6
 * expect-tests: 6
 */
#include <klee/klee.h>

int main(void) {
  unsigned char byte;
  int w;
  klee_make_symbolic(&byte, sizeof byte, "byte");
  klee_make_symbolic(&w, sizeof w, "w");
  signed char sc = (signed char)byte;
  int r = 0;
  if (sc < 0)
    r |= 1;
  /* Same test as sc < 0 through zero extension: decided. */
  if (byte > 127)
    r |= 2;
  /* -1 converted to unsigned is the largest value: w < -1u unless w == -1. */
  if ((unsigned)w < (unsigned)-1)
    r |= 4;
  /* Sign extension keeps negative values negative in 64 bits. */
  long long wide = w;
  if (wide < 0 && w >= 0)
    r |= 8; /* infeasible */
  return r;
}
