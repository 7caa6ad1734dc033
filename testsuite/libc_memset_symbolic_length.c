/* memset with a symbolic length, at a concrete and at a symbolic place.
 * n is 0..9 and buf holds 8 bytes: n = 0..8 fit (9 paths), n = 9 runs past
 * buf (1 ptr error at the first memset). n is fixed on each path, so
 * `n != 0` does not fork: n = 1..8 return (8 completed). For n = 0, row + j
 * (j = 0..3) stays in row, so the pointer does not fork; m = 0..5 each fit
 * for some j (6 completed), and j + m > 6 is possible (1 ptr error at the
 * second memset).
 * expect-completed: 14
 * expect-error: ptr 23 1
 * expect-error: ptr 30 1
 * expect-tests: 16
 */
#include <string.h>
#include <klee/klee.h>

struct pt {
  int x, y;
};

int main(void) {
  unsigned n = klee_range(0, 10, "n");
  char buf[8] = "AAAAAAA";
  memset(buf, 'z', n);
  int r = buf[6] == 'z';
  if (n != 0)
    return r;
  unsigned j = klee_range(0, 4, "j");
  unsigned m = klee_range(0, 6, "m");
  char row[6] = "bbbbb";
  memset(row + j, 'c', m);
  return row[3] == 'c';
}
