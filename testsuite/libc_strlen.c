/* strlen on a symbolic buffer with a terminating NUL: each byte is 'a' or
 * NUL, so there is one path per length 0..3 whatever strlen's own loop.
 * expect-completed: 4
 * expect-tests: 4
 */
#include <string.h>
#include <klee/klee.h>

int main(void) {
  char buf[4];
  klee_make_symbolic(buf, sizeof buf, "buf");
  for (int i = 0; i < 3; i++)
    klee_assume((buf[i] == 'a') | (buf[i] == '\0'));
  buf[3] = '\0';
  size_t n = strlen(buf);
  switch (n) {
  case 0:
    return 10;
  case 1:
    return 11;
  case 2:
    return 12;
  default:
    return 13;
  }
}
