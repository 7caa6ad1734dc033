/* A permutation made by swaps at indices masked from input bytes (as a
 * shuffle keeps its index in range), then the places it fixed counted and
 * a flag byte's bits tested one by one: reads through writes at symbolic
 * indices, chained, and bytes used only through a few of their bits.
 * expect-completed: 59
 * expect-error: assert 31 1
 * expect-tests: 60
 */
#include <assert.h>
#include <klee/klee.h>

int main(void) {
  unsigned char idx[3], flags;
  klee_make_symbolic(idx, sizeof idx, "idx");
  klee_make_symbolic(&flags, sizeof flags, "flags");
  int a[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int i = 0; i < 3; i++) {
    int j = idx[i] & 7;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  int fixed = 0;
  for (int i = 0; i < 4; i++)
    if (a[i] == i)
      fixed++;
  int bits = 0;
  for (int b = 0; b < 8; b += 5)
    if (flags >> b & 1)
      bits++;
  assert(!(fixed == 0 && bits == 2));
  return fixed;
}
