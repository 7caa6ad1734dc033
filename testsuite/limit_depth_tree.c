/* --max-depth on a tree of independent branches: paths that return after
 * few forks complete, the others stop at their fourth fork.
 * mnemo-args: --max-depth 3
 * expect-completed: 5
 * expect-early: max-depth 1
 * expect-tests: 6
 */
#include <klee/klee.h>

int main(void) {
  int b[5];
  for (int i = 0; i < 5; i++)
    b[i] = klee_range(0, 2, "b");
  if (b[0]) {
    if (b[1])
      return 1; /* 2 forks */
    if (b[2])
      return 2; /* 3 forks */
  }
  if (b[3]) {
    if (b[4])
      return 3;
    return 4;
  }
  return 5;
}
