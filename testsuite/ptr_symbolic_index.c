/* Reads and writes of a global table at symbolic indices that stay in
 * bounds: no error checks fork, only the program's own branches on the
 * values read (3 classes of tbl[i]) times whether the later write hit i.
 * expect-completed: 6
 * expect-tests: 6
 */
#include <klee/klee.h>

int tbl[8] = {3, 60, 7, 90, 12, 55, 1, 40};

int main(void) {
  int i = klee_range(0, 8, "i");
  int j = klee_range(0, 8, "j");
  int r;
  int v = tbl[i];
  if (v > 50)
    r = 1;
  else if (v == 7)
    r = 2;
  else
    r = 3;
  tbl[j] = -1;
  if (tbl[i] < 0)
    r += 10;
  return r;
}
