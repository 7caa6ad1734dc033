/* switch statements on a symbolic byte: cases sharing a target are one path,
 * fallthrough chains, a default, and a nested switch on a second input.
 * expect-completed: 7
 * expect-tests: 7
 */
#include <klee/klee.h>

int main(void) {
  char op;
  int mode = klee_range(0, 3, "mode");
  klee_make_symbolic(&op, sizeof op, "op");
  int r = 0;
  switch (op) {
  case '+':
  case '-':
    r = 1;
    break;
  case '*':
    r = 2;
    /* fall through */
  case '/':
    r += 3;
    break;
  case 'q':
    switch (mode) {
    case 0:
      return 40;
    case 1:
      return 41;
    default:
      return 42;
    }
  default:
    r = 9;
  }
  return r;
}
