/* Allocations of a symbolic size fork once per size, as KLEE's do: a VLA,
 * malloc, realloc and calloc; a size too large for any object is one path
 * more, where malloc gives null as it does for a huge concrete size.
 * n is 1..3: the VLA forks 3 ways, and malloc(n) then has one size. Each
 * realloc to n + m (m = 0..2) forks 3 ways: 9 paths, all in bounds.
 * calloc(m + 1, 4) has one size on each. The path with n == 1, m == 0 goes
 * on: the select gives malloc 16 bytes or 2^50; the second is too large,
 * so that path gets null (2 paths instead of 1). 10 completed in all.
 * expect-completed: 10
 * expect-tests: 10
 */
#include <stdlib.h>
#include <klee/klee.h>

int main(void) {
  int n = klee_range(1, 4, "n");
  int vla[n];
  vla[n - 1] = 7;
  char *p = malloc(n);
  if (!p)
    return 1;
  p[n - 1] = 'x';
  unsigned m = klee_range(0, 3, "m");
  char *q = realloc(p, n + m);
  if (!q)
    return 2;
  q[n + m - 1] = 'y';
  int *c = calloc(m + 1, sizeof(int));
  if (!c)
    return 3;
  c[m] = q[n - 1];
  free(c);
  free(q);
  if (n == 1 && m == 0) {
    int big = klee_range(0, 2, "big");
    char *h = malloc(big ? (size_t)1 << 50 : 16);
    if (!h)
      return 5;
    h[15] = 1;
    free(h);
    return 4;
  }
  return vla[n - 1];
}
