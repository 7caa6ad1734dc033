/* Recursion over a symbolic argument: sum(n) recurses while n > 0 (one path
 * per n in 0..5), and a concrete recursive fib adds no path.
 * expect-completed: 6
 * expect-tests: 6
 */
#include <klee/klee.h>

static int sum(int n) {
  if (n <= 0)
    return 0;
  return n + sum(n - 1);
}

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(void) {
  int n = klee_range(0, 6, "n");
  int s = sum(n);
  return s + fib(10) - 55;
}
