/* A CRC through a table, over two input bytes again and again, as Csmith's
 * programs hash their globals: each lookup's index is the hash so far, one
 * step longer than the last one's. Whether an index can take another value
 * is answered next to the path's model, the values under it and under the
 * witness before kept from one lookup to the next (evaluated whole at each
 * lookup, 6,000 lookups had not ended in 60 s). The branch on the first
 * input byte then forks, each side with its test.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <stdint.h>

static uint32_t table[256];

int main(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++)
      c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    table[i] = c;
  }
  uint8_t g[2];
  klee_make_symbolic(g, sizeof g, "g");
  uint32_t crc = 0xFFFFFFFFu;
  for (int round = 0; round < 3000; round++)
    for (int i = 0; i < 2; i++)
      crc = (crc >> 8) ^ table[(crc ^ g[i]) & 0xFF];
  if (g[0] == 'A')
    return 1;
  return 0;
}
