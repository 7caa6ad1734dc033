/* Callbacks through a struct of function pointers: an insertion sort with a
 * comparator and a visitor, over three symbolic values in [0, 3); one path
 * per outcome sequence of the comparisons (the orderings with ties).
 * expect-completed: 6
 * expect-tests: 6
 */
#include <assert.h>
#include <klee/klee.h>

struct ops {
  int (*compare)(int, int);
  void (*visit)(int *acc, int v);
};

static int ascending(int a, int b) { return a - b; }
static void checksum(int *acc, int v) { *acc = *acc * 3 + v; }

static void sort(int *v, int n, const struct ops *o) {
  for (int i = 1; i < n; i++) {
    int key = v[i];
    int j = i - 1;
    while (j >= 0 && o->compare(v[j], key) > 0) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = key;
  }
}

int main(void) {
  int v[3];
  for (int i = 0; i < 3; i++)
    v[i] = klee_range(0, 3, "v");
  struct ops o = {ascending, checksum};
  sort(v, 3, &o);
  assert(v[0] <= v[1] && v[1] <= v[2]);
  int acc = 0;
  for (int i = 0; i < 3; i++)
    o.visit(&acc, v[i]);
  return acc;
}
