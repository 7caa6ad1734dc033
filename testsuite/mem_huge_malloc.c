/* Requests no machine's memory holds fail as natively: malloc and calloc
 * give null, realloc gives null and leaves the old block as it was, and
 * the program goes on (sort -S 1P halves its request until one fits).
 * expect-completed: 1
 * expect-tests: 1
 */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  size_t huge = (size_t)1 << 50;
  char *p = malloc(huge);
  char *q = calloc(huge, 2);
  char *small = malloc(4);
  if (!small)
    return 1;
  small[0] = 'k';
  char *r = realloc(small, huge);
  printf("%d %d %d %c\n", p == 0, q == 0, r == 0, small[0]);
  free(small);
  return 0;
}
