/* The least int divided by -1 has no quotient: the processor traps on it
 * (SIGFPE) as on a zero divisor, for / and % alike. KLEE checks only the
 * zero divisor; mnemo forks the least dividend over -1 off as `overflow`
 * too. The remainder's divisor is no longer zero, but its dividend is
 * another input; a constant divisor of -1 is checked as well, and a
 * 64-bit division of a widened int can never overflow.
 * expect-completed: 1
 * expect-error: div-by-zero 20 1
 * expect-error: overflow 20 1
 * expect-error: overflow 21 1
 * expect-error: overflow 22 1
 * expect-tests: 5
 */
#include <klee/klee.h>

int main(void) {
  int a = klee_int("a");
  int b = klee_int("b");
  int c = klee_int("c");
  int q = a / b;
  int r = c % b;
  int n = a / -1;
  long long w = (long long)a / b;
  return (q ^ r ^ n ^ (int)w) & 1;
}
