/* A buffer of a gigabyte (as sort allocates for `-S 1G`) that a few
 * symbolic bytes are copied into: the engine keeps those bytes, not a slot
 * for each of the buffer's, and both sides of the branch on one of them
 * complete (natively too: the allocation is only reserved).
 * expect-completed: 2
 * expect-tests: 2
 */
#include <stdlib.h>
#include <string.h>
#include <klee/klee.h>

int main(void) {
  char in[4];
  klee_make_symbolic(in, sizeof in, "in");
  char *buf = malloc(1u << 30);
  if (!buf)
    return 3;
  memcpy(buf + 100, in, sizeof in);
  if (buf[101] == 'x')
    return 1;
  return 0;
}
