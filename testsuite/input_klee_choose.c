/* klee_choose(n) makes an input below n (KLEE's runtime ends a path where
 * it is not, silently), so no path reaches the aborts; klee_get_errno
 * reads the C library's errno; klee_mark_global and
 * klee_posix_prefer_cex are accepted as KLEE accepts them. The write at
 * the chosen index may or may not hit the last element: two paths, whose
 * tests replay natively with the same exit status.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <errno.h>
#include <stdlib.h>
#include <klee/klee.h>

int table[4];

int main(void) {
  klee_mark_global(table);
  uintptr_t i = klee_choose(4);
  if (i >= 4)
    abort();
  if (klee_choose(1) != 0)
    abort();
  table[i] = 1;
  klee_posix_prefer_cex(table, i == 2);
  int code = 0;
  errno = 0;
  strtol("99999999999999999999", NULL, 10);
  if (klee_get_errno() == ERANGE)
    code += 10;
  if (table[3] == 1)
    code += 20;
  return code;
}
