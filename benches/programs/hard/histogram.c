/* Memory at a symbolic index: a histogram of the four 2-bit fields of a
 * symbolic byte (increments at symbolic indices of a small local array),
 * then loops bounded by the counts read back; 35 count vectors. */
#include <assert.h>
#include <klee/klee.h>

int main(void) {
  unsigned char b;
  klee_make_symbolic(&b, sizeof b, "b");
  int count[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; k++)
    count[(b >> (2 * k)) & 3]++;
  int total = 0;
  for (int f = 0; f < 4; f++)
    for (int j = 0; j < count[f]; j++)
      total++;
  assert(total == 4);
  return 0;
}
