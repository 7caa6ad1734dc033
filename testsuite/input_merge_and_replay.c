/* The klee.h functions that only look on: merge hints (nothing to do),
 * printing an expression and a range, a stack trace, a warning printed
 * once, klee_is_replay, and object sizes asked where it is 0 (natively
 * they have no answer). x < 3 forks, and on its second side helper(x) > 14
 * (x > 7) forks again: 3 paths. tests/klee_api.rs checks what the engine
 * prints.
 * expect-completed: 3
 * expect-tests: 3
 */
#include <stdlib.h>
#include <klee/klee.h>

static int table[5];

static int helper(int v) {
  klee_stack_trace();
  return v * 2;
}

int main(void) {
  int x = klee_range(0, 10, "x");
  int r;
  klee_open_merge();
  if (x < 3)
    r = 10;
  else
    r = 20;
  klee_close_merge();
  klee_print_expr("x plus one", x + 1);
  if (helper(x) > 14)
    r += 5;
  klee_print_range("x", x);
  klee_print_range("r", r);
  klee_warning_once("merge hints are ignored");
  klee_warning_once("merge hints are ignored");
  if (!klee_is_replay()) {
    char local[3];
    char *p = malloc(12);
    /* Last, as the symbolic pointer fixes x. */
    if (klee_get_obj_size(p + 5) != 12 || klee_get_obj_size(local) != 3 ||
        klee_get_obj_size(table + x % 5) != sizeof table)
      klee_report_error(__FILE__, __LINE__, "wrong object size", "user");
    free(p);
  }
  return r;
}
