/* klee_check_memory_access: bytes inside one live object pass; bytes past
 * an object's end (ptr), at a null pointer (null) or in a freed block
 * (use-after-free) end the path there. Natively AddressSanitizer reports
 * the same accesses. k takes each of 5 cases, one path each.
 * expect-completed: 2
 * expect-error: ptr 24 1
 * expect-error: null 26 1
 * expect-error: use-after-free 29 1
 * expect-tests: 5
 */
#include <stdlib.h>
#include <klee/klee.h>

static char buf[8];

int main(void) {
  int k = klee_range(0, 5, "k");
  char *heap = malloc(4);
  if (heap == NULL)
    return 9;
  if (k == 0)
    klee_check_memory_access(buf + 2, 6); /* up to the last byte */
  else if (k == 1)
    klee_check_memory_access(buf + 4, 5); /* one byte past the end */
  else if (k == 2)
    klee_check_memory_access(NULL, 1);
  else if (k == 3) {
    free(heap);
    klee_check_memory_access(heap, 1);
  } else
    klee_check_memory_access(heap, 4);
  klee_check_memory_access(heap, 0); /* no bytes: nothing to check */
  return k;
}
