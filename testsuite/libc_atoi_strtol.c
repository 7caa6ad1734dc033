/* atoi and strtol on a symbolic two-character number ("-2", "49", ...):
 * the program distinguishes all six admissible strings, and strtol's end
 * pointer always stops at the NUL.
 * expect-completed: 6
 * expect-tests: 6
 */
#include <assert.h>
#include <stdlib.h>
#include <klee/klee.h>

int main(void) {
  char buf[3];
  klee_make_symbolic(buf, sizeof buf, "buf");
  klee_assume((buf[0] == '-') | (buf[0] == '4') | (buf[0] == '7'));
  klee_assume((buf[1] == '2') | (buf[1] == '9'));
  buf[2] = '\0';
  int n = atoi(buf);
  char *end;
  long l = strtol(buf, &end, 10);
  assert(end == buf + 2);
  assert(l == n);
  switch (n) {
  case -2:
    return 1;
  case -9:
    return 6;
  case 42:
    return 2;
  case 49:
    return 3;
  case 72:
    return 4;
  case 79:
    return 5;
  default:
    return 0;
  }
}
