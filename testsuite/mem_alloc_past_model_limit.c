/* A request for 8 GiB (as split makes for `---io-blksize=8G`) is past the
 * largest object the engine models, 4 GiB: malloc gives null there. The
 * native replay runs under the same limit, so it gets null too, whatever
 * the machine's memory and overcommit would have allowed.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <stdlib.h>
#include <klee/klee.h>

int main(void) {
  unsigned char c;
  klee_make_symbolic(&c, sizeof c, "c");
  size_t n = (size_t)1 << 20;
  if (c == 'b')
    n = (size_t)8 << 30;
  char *p = malloc(n);
  if (!p)
    return 3;
  p[n - 1] = 1;
  return 0;
}
