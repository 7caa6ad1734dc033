/* testsuite's nondet loops made deep: each step reads a fresh bounded
 * value, folds it into a running sum whose branches test it against the
 * step, and goes on while the input says so. The sum ties every fresh
 * value to all before it, so each branch asks the solver about the whole
 * path (the parallel benchmark's loop on fresh input; only the run's
 * depth bound ends it). */
#include <klee/klee.h>

extern int __VERIFIER_nondet_int(void);

int main(void) {
  int sum = 0, n = 0;
  while (klee_range(0, 2, "more")) {
    n++;
    int v = __VERIFIER_nondet_int();
    if (v < 0 || v > 10)
      return 2;
    if (v > sum % 11)
      sum += v * n;
    else
      sum -= v;
    if (sum % 7 == n % 7)
      sum -= n;
  }
  return sum > 5 * n;
}
