/* free() of pointers that are not the start of a live heap block: a stack
 * object, an interior pointer and a global (each invalid-free), while
 * free(NULL) and a proper free complete.
 * expect-completed: 1
 * expect-error: invalid-free 21 1
 * expect-error: invalid-free 24 1
 * expect-error: invalid-free 27 1
 * expect-tests: 4
 */
#include <stdlib.h>
#include <klee/klee.h>

int global_cell;

int main(void) {
  int local = 0;
  char *heap = malloc(8);
  int which = klee_range(0, 4, "which");
  switch (which) {
  case 0:
    free(&local);
    break;
  case 1:
    free(heap + 1);
    break;
  case 2:
    free(&global_cell);
    break;
  default:
    free(NULL);
    break;
  }
  free(heap);
  return local + global_cell;
}
