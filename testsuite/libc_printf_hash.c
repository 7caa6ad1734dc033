/* Printing a CRC of symbolic bytes: each digit printf makes is a branch on
 * the hash, which no solver answers in time for the side the path's model
 * does not take. That side is given up, the hashed bytes are fixed to the
 * model's, and the path goes on past the printf (it used to end there with
 * a solver error); the branch on the other input still forks.
 * mnemo-args: --solver-timeout 2000
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <stdint.h>
#include <stdio.h>

static uint32_t table[256];

int main(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i << 24;
    for (int k = 0; k < 8; k++)
      c = c & 0x80000000u ? (c << 1) ^ 0x04C11DB7u : c << 1;
    table[i] = c;
  }
  unsigned char data[8], flag;
  klee_make_symbolic(data, sizeof data, "data");
  klee_make_symbolic(&flag, sizeof flag, "flag");
  uint32_t crc = 0;
  for (int i = 0; i < 8; i++)
    crc = (crc << 8) ^ table[((crc >> 24) ^ data[i]) & 0xFF];
  printf("%u\n", ~crc);
  if (flag == 'x')
    return 1;
  return 0;
}
