/* klee_report_error ends a path with an error of kind user, reported at the
 * call (the file and line arguments name the same place).
 * expect-completed: 1
 * expect-error: user 12 1
 * expect-tests: 2
 */
#include <klee/klee.h>

int main(void) {
  int code = klee_range(0, 4, "code");
  if (code == 2)
    klee_report_error(__FILE__, __LINE__, "code 2 is reserved", "user");
  return code;
}
