/* Pointer arithmetic over a symbolic buffer: a scan for the first 'x' with
 * pointer comparison and difference, and a pointer to pointer that moves
 * the cursor; one path per position of the first 'x' (or none).
 * expect-completed: 8
 * expect-tests: 8
 */
#include <stddef.h>
#include <klee/klee.h>

static void advance(const char **cursor, const char *end) {
  while (*cursor < end && **cursor != 'x')
    (*cursor)++;
}

int main(void) {
  char buf[7];
  klee_make_symbolic(buf, sizeof buf, "buf");
  const char *p = buf;
  const char *end = buf + sizeof buf;
  advance(&p, end);
  ptrdiff_t pos = p - buf;
  if (p == end)
    return 100;
  return (int)pos;
}
