/* printf/sprintf/snprintf with concrete values of every common conversion
 * (varargs through the libc), on both sides of one symbolic branch.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <klee/klee.h>

int main(void) {
  int x = klee_range(0, 10, "x");
  char buf[64];
  int n = sprintf(buf, "%d|%s|%c|%x|%5.2f|%-3u|%ld", -42, "ab", 'z', 255, 3.5,
                  7u, 1234567890123L);
  assert(n == (int)strlen(buf));
  assert(strcmp(buf, "-42|ab|z|ff| 3.50|7  |1234567890123") == 0);
  char small[6];
  int m = snprintf(small, sizeof small, "%s", "truncated");
  assert(m == 9 && strcmp(small, "trunc") == 0);
  /* What %p prints is the C library's choice (musl "0", glibc "(nil)"
   * for a null pointer), so it stays out of stdout, which native replay
   * compares under glibc. */
  char ptr[24];
  assert(snprintf(ptr, sizeof ptr, "%p", (void *)0) > 0);
  if (x > 4)
    printf("big: %s %d%%\n", buf, 100);
  else
    printf("small: %#x %o\n", 255, 8);
  return 0;
}
