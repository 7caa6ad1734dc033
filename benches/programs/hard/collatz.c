/* Nonlinear: a Collatz-style loop on a symbolic byte, every step forking on
 * parity (3n + 1 on odd values), bounded in steps. */
#include <klee/klee.h>

int main(void) {
  unsigned n = klee_range(1, 64, "n");
  int steps = 0;
  while (n != 1 && steps < 12) {
    if (n % 2)
      n = 3 * n + 1;
    else
      n = n / 2;
    steps++;
  }
  return steps;
}
