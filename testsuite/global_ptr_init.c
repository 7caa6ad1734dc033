/* Globals with pointer initializers: a pointer to a global, a struct holding
 * a string literal and a pointer, an array of strings indexed symbolically
 * (a load through a symbolic pointer into one of three literals), and a
 * pointer into the middle of a global array.
 * expect-completed: 3
 * expect-tests: 3
 */
#include <string.h>
#include <klee/klee.h>

int limit = 5;
int *limit_ptr = &limit;
int table[6] = {1, 2, 3, 4, 5, 6};
int *middle = &table[3];

struct config {
  const char *name;
  int *value;
} cfg = {"cfg", &limit};

const char *names[3] = {"zero", "one", "two"};

int main(void) {
  int k = klee_range(0, 3, "k");
  if (*limit_ptr != 5 || cfg.value != &limit || middle[1] != 5)
    return 100;
  if (strcmp(cfg.name, "cfg") != 0)
    return 101;
  const char *s = names[k];
  if (s[0] == 't')
    return 2;
  if (s[0] == 'o')
    return 1;
  return 0;
}
