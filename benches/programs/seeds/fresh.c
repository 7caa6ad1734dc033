/* a loop on fresh input: a protocol of rounds, each reading a new value
 * seed: v 05000000
 * seed: v 16000000
 * seed: v 27000000
 * seed: v 38000000
 * seed: v 49000000
 * seed: v 5a000000
 * seed: v 6b000000
 * seed: v 7c000000
 * seed: v 8d000000
 * seed: v 9e000000
 * seed: v af000000
 * seed: v c0000000
 */
#include <klee/klee.h>
#include <assert.h>
int main(void) {
  int state = 0;
  for (int round = 0; round < 12; round++) {
    int v = klee_int("v");
    if (v == 17 * round + 5) state++;
    else if (v < 0) state = 0;
  }
  assert(state < 12);
  return state;
}
