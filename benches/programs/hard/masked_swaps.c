/* Memory at symbolic indices, chained: five swaps in an eight-entry array
 * at indices masked from input bytes (as a shuffle keeps its index in
 * range), then the places left reversed counted. Each read walks the
 * writes before it; 168 paths. */
#include <klee/klee.h>

int main(void) {
  unsigned char idx[5];
  klee_make_symbolic(idx, sizeof idx, "idx");
  int a[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int i = 0; i < 5; i++) {
    int j = idx[i] & 7;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  int score = 0;
  for (int i = 0; i < 8; i++)
    if (a[i] == 7 - i)
      score++;
  return score > 3;
}
