/* Wraparound of unsigned 8-bit and 64-bit arithmetic, truncation to char,
 * and a 64-bit product that must not be computed in 32 bits.
 * expect-completed: 12
 * expect-tests: 12
 */
#include <stdint.h>
#include <klee/klee.h>

int main(void) {
  uint8_t x;
  uint64_t u;
  klee_make_symbolic(&x, sizeof x, "x");
  klee_make_symbolic(&u, sizeof u, "u");
  int r = 0;
  uint8_t y = (uint8_t)(x + 200);
  if (y < x)
    r |= 1; /* x >= 56 wrapped */
  if (u + 1 == 0)
    r |= 2; /* u == UINT64_MAX */
  uint32_t lo = (uint32_t)u;
  if (lo == 0 && u != 0)
    r |= 4; /* a multiple of 2^32 */
  uint64_t wide = (uint64_t)x * 0x1000000u * 0x100u;
  if (wide > 0xffffffffu)
    r |= 8; /* x >= 1 shifted past 32 bits */
  return r;
}
