/* Memoise (ISSTA 2012) Fig. 1: compute(curr, thresh, step); the loop over
 * curr -= step is unbounded in the number of forks, so a depth bound cuts it.
 * mnemo-args: --max-depth 6
 * expect-completed: 7
 * expect-early: max-depth 1
 * expect-tests: 8
 */
/* Forks: curr < thresh (1), then either curr + step < thresh (2) or one
 * loop test per iteration; loop exits after forks 2..6 complete, the path
 * still looping at fork 7 ends early. 2 + 5 completed. */
#include <klee/klee.h>

int compute(int curr, int thresh, int step) {
  if (curr < thresh) {
    int delta = thresh - curr;
    if (curr + step < thresh)
      return -delta;
    else
      return 0;
  } else {
    int count = 0;
    while (curr >= thresh) {
      curr -= step;
      count++;
    }
    return count;
  }
}

int main(void) {
  int curr = klee_range(-50, 50, "curr");
  int thresh = klee_range(-50, 50, "thresh");
  int step = klee_range(1, 8, "step");
  return compute(curr, thresh, step) & 0x7f;
}
