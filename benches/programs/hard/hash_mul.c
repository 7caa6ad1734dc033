/* Nonlinear: a multiplicative hash (FNV-style) of a 4-byte symbolic key,
 * looked up in a small table of buckets. */
#include <klee/klee.h>
#include <stdint.h>

int main(void) {
  unsigned char key[4];
  klee_make_symbolic(key, sizeof key, "key");
  uint32_t h = 2166136261u;
  for (int i = 0; i < 4; i++) {
    h ^= key[i];
    h *= 16777619u;
  }
  unsigned bucket = (h ^ (h >> 16)) % 7;
  if (bucket == 3 && key[0] == 'k')
    return 3;
  if (bucket == 5)
    return 5;
  return 0;
}
