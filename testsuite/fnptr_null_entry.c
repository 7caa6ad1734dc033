/* A symbolic choice of handler where one table entry is NULL: the call
 * forks into the two functions and a null error at the call.
 * expect-completed: 2
 * expect-error: null 19 1
 * expect-tests: 3
 */
#include <stddef.h>
#include <klee/klee.h>

static int inc(int v) { return v + 1; }
static int dec(int v) { return v - 1; }

typedef int (*handler)(int);

int main(void) {
  handler table[3] = {inc, dec, NULL};
  int k = klee_range(0, 3, "k");
  handler h = table[k];
  return h(10);
}
