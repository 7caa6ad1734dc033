/* memory at symbolic indices: a state machine driven by a table
 * seed: in 03020303000000000000
 */
#include <klee/klee.h>
#include <assert.h>
static const unsigned char next[8][4] = {
  {1, 0, 0, 2}, {1, 3, 0, 2}, {4, 0, 5, 2}, {1, 0, 6, 2},
  {1, 7, 0, 2}, {1, 0, 0, 6}, {4, 0, 0, 7}, {7, 7, 7, 7}};
int main(void) {
  unsigned char in[10];
  klee_make_symbolic(in, sizeof in, "in");
  unsigned s = 0;
  for (int i = 0; i < 10; i++)
    s = next[s][in[i] & 3];
  assert(s != 7);
  return s;
}
