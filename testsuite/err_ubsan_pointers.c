/* Built with clang's -fsanitize= checks for pointers and loaded values:
 * a member access through null is `null`, an index past an array's bound
 * `ptr`, an int loaded from a misaligned address and a _Bool holding
 * neither 0 nor 1 `undefined` (checks unchecked code lacks: it loads
 * both). The alignment check's handler also serves null pointers, and the
 * path forks between them; here only the misaligned one is feasible. The
 * _Bool chooses between constants, a select: one path.
 * cc-args: -fsanitize=null,alignment,bounds,bool
 * expect-completed: 4
 * expect-error: null 26 1
 * expect-error: ptr 37 1
 * expect-error: undefined 40 1
 * expect-error: undefined 46 1
 * expect-tests: 8
 */
#include <klee/klee.h>
#include <string.h>

struct account {
  int balance;
};

static struct account saved = {7};

static int balance(struct account *a) {
  return a->balance;
}

int main(void) {
  int op = klee_range(0, 4, "op");
  int k = klee_int("k");
  int table[4] = {1, 2, 3, 4};
  switch (op) {
  case 0:
    return balance(k == 9 ? 0 : &saved);
  case 1:
    return table[k & 7];
  case 2: {
    int *p = (int *)((char *)table + (k & 3));
    return *p & 1;
  }
  default: {
    unsigned char raw = (unsigned char)k;
    _Bool flag;
    memcpy(&flag, &raw, 1);
    return flag ? 3 : 4;
  }
  }
}
