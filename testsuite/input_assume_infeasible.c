/* A klee_assume that contradicts its path is the harness's mistake: the
 * path ends there as a user error, with a test, as in KLEE (whose
 * --silent-klee-assume, here too, ends it silently). So does one given a
 * constant 0. SV-COMP's __VERIFIER_assume ends such a path silently, with
 * no test, as that contest defines it.
 * expect-completed: 1
 * expect-error: user 19 1
 * expect-error: user 21 1
 * expect-tests: 3
 */
#include <klee/klee.h>
#include <mnemo/verifier.h>

int main(void) {
  int x = klee_range(0, 100, "x");
  if (x > 60)
    __VERIFIER_assume(x < 10);
  else if (x > 50)
    klee_assume(x < 10);
  else if (x == 7)
    klee_assume(0);
  else
    return 0;
  return 1;
}
