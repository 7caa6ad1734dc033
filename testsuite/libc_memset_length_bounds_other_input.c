/* memset with a symbolic length at a symbolic place: the lengths that fit
 * depend on the place too, so each length's path keeps that bound. j is
 * 0..3 and m is 0..5 in a 6-byte row: m forks over 0..5, and the lengths
 * past the room left (j + m > 6) end in one ptr error. After it, j == 3
 * is possible for m = 0..3 only (two paths each, 8) and not for m = 4 or
 * m = 5 (one path each, 2): a path of length 5 that forgot its bound
 * would take j == 3 too, with a test that overruns the row natively.
 * expect-completed: 10
 * expect-error: ptr 19 1
 * expect-tests: 11
 */
#include <string.h>
#include <klee/klee.h>

int main(void) {
  unsigned j = klee_range(0, 4, "j");
  unsigned m = klee_range(0, 6, "m");
  char row[6] = "bbbbb";
  memset(row + j, 'c', m);
  if (j == 3)
    return 1;
  return 0;
}
