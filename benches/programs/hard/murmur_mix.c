/* Nonlinear by mixing: MurmurHash3's 32-bit finalizer (xor-shifts and
 * products by large odd constants) of a symbolic word, then branches on
 * bits of the hash, as a hash table or a Bloom filter does. */
#include <klee/klee.h>
#include <stdint.h>

int main(void) {
  uint32_t k;
  klee_make_symbolic(&k, sizeof k, "k");
  k ^= k >> 16;
  k *= 0x85ebca6bu;
  k ^= k >> 13;
  k *= 0xc2b2ae35u;
  k ^= k >> 16;
  if ((k & 0xff) == 0x42)
    return 1;
  if ((k >> 28) == 3)
    return 2;
  return 0;
}
