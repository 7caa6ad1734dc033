/* String code: a symbolic 6-byte buffer parsed as a signed decimal number
 * with a keyword check, through the runtime's C library. */
#include <klee/klee.h>
#include <string.h>

int main(void) {
  char buf[7];
  klee_make_symbolic(buf, sizeof buf, "buf");
  buf[6] = 0;
  if (strncmp(buf, "on", 2) == 0)
    return 1;
  int i = 0, neg = 0, v = 0;
  if (buf[0] == '-') {
    neg = 1;
    i = 1;
  }
  for (; i < 6 && buf[i] >= '0' && buf[i] <= '9'; i++)
    v = v * 10 + (buf[i] - '0');
  if (neg)
    v = -v;
  return v == -42 ? 2 : 0;
}
