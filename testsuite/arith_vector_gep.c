/* Optimized code indexing a vector in memory: at -O2 clang keeps the four
 * counters of a small array in one `<4 x i32>` and increments a lane at a
 * symbolic index through a getelementptr into the vector. Every field is
 * counted once (the lanes sum to 4), and the lane of the low field is at
 * least 1, whatever the byte.
 * cc-args: -O2
 * expect-completed: 1
 * expect-tests: 1
 */
#include <assert.h>
#include <klee/klee.h>

int main(void) {
  unsigned char b;
  klee_make_symbolic(&b, sizeof b, "b");
  int count[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; k++)
    count[(b >> (2 * k)) & 3]++;
  int total = 0;
  for (int f = 0; f < 4; f++)
    for (int j = 0; j < count[f]; j++)
      total++;
  assert(total == 4);
  assert(count[b & 3] >= 1);
  return count[0] > 2;
}
