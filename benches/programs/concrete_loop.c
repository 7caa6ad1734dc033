/* Interpreter throughput: a concrete loop of arithmetic, loads and stores.
 * No symbolic input, so every instruction takes the concrete fast path. */
#include <stdint.h>

#define N 4096

static uint32_t table[N];

int main(void) {
  uint32_t acc = 1;
  for (int round = 0; round < 100; round++) {
    for (int i = 0; i < N; i++) {
      table[i] = table[i] * 31u + (uint32_t)i + acc;
      acc ^= table[i] >> 3;
    }
  }
  return (int)(acc & 1);
}
