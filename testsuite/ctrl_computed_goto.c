/* GNU C's labels as values (computed goto, `indirectbr`): a bytecode
 * interpreter dispatching through a table of label addresses, and a
 * second dispatch through label offsets (`&&l - &&base`, a constant
 * expression in a static initializer). code[] is symbolic: each of its
 * three opcodes is increment, double or halt, so the interpreter runs
 * 1 + 2 + 4 + 8 = 15 paths; two of them (double-double-double and
 * increment-double-double) reach 8 and fail the assertion. The offsets
 * dispatch on code[0] % 3 as well and forks no further.
 * expect-completed: 13
 * expect-error: assert 47 2
 * expect-tests: 15
 */
#include <assert.h>
#include <klee/klee.h>

static int run(const unsigned char *code, int n) {
  static void *ops[] = {&&op_inc, &&op_dbl, &&op_halt};
  int acc = 1, pc = 0;
  goto *ops[code[pc++] % 3];
op_inc:
  acc++;
  if (pc >= n) return acc;
  goto *ops[code[pc++] % 3];
op_dbl:
  acc *= 2;
  if (pc >= n) return acc;
  goto *ops[code[pc++] % 3];
op_halt:
  return acc;
}

static int first_kind(unsigned char op) {
  static const int offsets[] = {&&inc - &&inc, &&dbl - &&inc, &&halt - &&inc};
  goto *(&&inc + offsets[op % 3]);
inc:
  return 1;
dbl:
  return 2;
halt:
  return 3;
}

int main(void) {
  unsigned char code[3];
  klee_make_symbolic(code, sizeof code, "code");
  int r = run(code, 3);
  assert(r != 8);
  int k = first_kind(code[0]);
  if (k == 3) return r == 1 ? 0 : 1;
  return k == 1 || k == 2 ? 0 : 2;
}
