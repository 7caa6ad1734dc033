/* strcpy then strchr on a symbolic string over {'x', 'y'} of length 0..3;
 * the program reads back every copied byte, so the paths are exactly the
 * 1 + 2 + 4 + 8 admissible strings.
 * expect-completed: 15
 * expect-tests: 15
 */
#include <assert.h>
#include <string.h>
#include <klee/klee.h>

int main(void) {
  char src[4], dst[4];
  klee_make_symbolic(src, sizeof src, "src");
  for (int i = 0; i < 3; i++)
    klee_assume((src[i] == 'x') | (src[i] == 'y') | (src[i] == '\0'));
  src[3] = '\0';
  strcpy(dst, src);
  int code = 0;
  for (int i = 0; dst[i] != '\0'; i++) {
    if (dst[i] == 'y')
      code = code * 3 + 2;
    else
      code = code * 3 + 1;
  }
  char *y = strchr(dst, 'y');
  if (y != NULL)
    assert(*y == 'y' && y >= dst && y < dst + 3);
  return code;
}
