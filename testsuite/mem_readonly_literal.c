/* A write into a string literal (a constant global): kind readonly. The
 * copy in a writable array may be modified.
 * expect-completed: 1
 * expect-error: readonly 15 1
 * expect-tests: 2
 */
#include <klee/klee.h>

int main(void) {
  char c = (char)klee_range('a', 'z' + 1, "c");
  char *lit = "hello";
  char copy[] = "hello";
  copy[0] = c;
  if (c == 'j')
    lit[0] = c;
  return copy[0] == lit[0];
}
