/* longjmp to a jmp_buf filled by a frame that has returned: an error
 * (bad-call) where the program would jump into a dead frame; the other
 * side of the branch completes.
 * expect-completed: 1
 * expect-error: bad-call 19 1
 * expect-tests: 2
 */
#include <setjmp.h>
#include <klee/klee.h>

static jmp_buf env;

static int arm(void) { return setjmp(env); }

int main(void) {
  int x = klee_int("x");
  arm();
  if (x > 5)
    longjmp(env, 1);
  return 0;
}
