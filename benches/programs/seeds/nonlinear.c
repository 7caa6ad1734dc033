/* nonlinear arithmetic: a checksum of products, then a remainder chain
 * seed: x c153d83c
 * seed: y 05000000
 * seed: z bf020000
 */
#include <klee/klee.h>
#include <assert.h>
int main(void) {
  unsigned x, y, z;
  klee_make_symbolic(&x, sizeof x, "x");
  klee_make_symbolic(&y, sizeof y, "y");
  klee_make_symbolic(&z, sizeof z, "z");
  int n = 0;
  for (int i = 0; i < 4; i++)
    if ((x >> (8 * i)) % 7 == 3) n++;
  if (x * y == 0x3039a2c5u && y % 13 == 5 && (z * x) % 1000 == 999)
    assert(0 && "checksum");
  return n;
}
