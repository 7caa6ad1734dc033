/* A call through a table of function pointers indexed by a symbolic value:
 * one path per distinct target (entries 0 and 3 are the same function).
 * expect-completed: 3
 * expect-tests: 3
 */
#include <klee/klee.h>

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }

int (*const ops[4])(int, int) = {add, sub, mul, add};

int main(void) {
  int k = klee_range(0, 4, "k");
  int r = ops[k](6, 4);
  return r;
}
