/* Word-at-a-time search, as gnulib's rawmemchr does it: aligned 8-byte
 * loads over a 9-byte line buffer, the last of which runs past the block's
 * end. An aligned word never crosses a page, so natively nothing faults
 * (the search is not instrumented, as a C library's is not): each of the 9
 * places of the first newline completes. A load that is not aligned and
 * runs past the end is still an error, on the path that asks for it.
 * expect-completed: 9
 * expect-error: ptr 46 1
 * expect-tests: 10
 */
#include <stdint.h>
#include <stdlib.h>
#include <klee/klee.h>

__attribute__((no_sanitize("address"))) static const char *
find_newline(const char *s) {
  const uint64_t ones = 0x0101010101010101ull;
  const uint64_t high = 0x8080808080808080ull;
  const uint64_t nl = ones * '\n';
  const uint64_t *w = (const uint64_t *)s;
  for (;;) {
    uint64_t x = *w ^ nl;
    if (((x - ones) & ~x & high) != 0)
      break;
    w++;
  }
  const char *c = (const char *)w;
  while (*c != '\n')
    c++;
  return c;
}

int main(void) {
  char *line = malloc(9);
  if (!line)
    return 100;
  char unaligned;
  klee_make_symbolic(&unaligned, 1, "unaligned");
  klee_make_symbolic(line, 8, "line");
  line[8] = '\n';
  if (unaligned == 1) {
    /* Four bytes at offset 10 of a 12-byte block: not aligned, and two
     * of them are past the end (ASan sees it too). */
    char *rec = calloc(1, 12);
    volatile uint32_t *q = (volatile uint32_t *)(rec + 10);
    return (int)(*q & 1);
  }
  int at = (int)(find_newline(line) - line);
  free(line);
  return at;
}
