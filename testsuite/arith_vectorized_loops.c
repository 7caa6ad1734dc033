/* Loops clang -O2 vectorizes, on symbolic arrays: a sum and a running
 * minimum and maximum (<4 x i32> lanes and vector reductions), a count of
 * a character (<4 x i8> compared, widened to <4 x i32>), a scaled copy
 * (vector stores). The trip counts are concrete, and the maximum and
 * minimum are selects at -O2, so nothing forks but the asserts: each of
 * the three that can fail ends one path (the sum, a string of 32 'x', a
 * maximum of 77); the other two always hold.
 * cc-args: -O2
 * expect-completed: 1
 * expect-error: assert 58 1
 * expect-error: assert 60 1
 * expect-error: assert 61 1
 * expect-tests: 4
 */
#include <assert.h>
#include <klee/klee.h>

#define N 24

__attribute__((noinline)) unsigned sum(const unsigned *a, int n) {
  unsigned s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

__attribute__((noinline)) int count(const char *s, int n, char c) {
  int k = 0;
  for (int i = 0; i < n; i++)
    k += s[i] == c;
  return k;
}

__attribute__((noinline)) int maxof(const int *a, int n) {
  int m = a[0];
  for (int i = 1; i < n; i++)
    m = a[i] > m ? a[i] : m;
  return m;
}

__attribute__((noinline)) void scale(unsigned *d, const unsigned *a, int n) {
  for (int i = 0; i < n; i++)
    d[i] = a[i] * 3 + 1;
}

__attribute__((noinline)) unsigned least(const unsigned *a, int n) {
  unsigned m = ~0u;
  for (int i = 0; i < n; i++)
    m = a[i] < m ? a[i] : m;
  return m;
}

int main(void) {
  unsigned a[N];
  char s[32];
  klee_make_symbolic(a, sizeof a, "a");
  klee_make_symbolic(s, sizeof s, "s");
  assert(sum(a, N) != 12345);
  int k = count(s, 32, 'x');
  assert(k < 32);
  assert(maxof((const int *)a, N) != 77);
  unsigned d[N];
  scale(d, a, N);
  assert(d[5] == a[5] * 3 + 1 && d[17] == a[17] * 3 + 1);
  assert(least(d, N) <= d[9]);
  return k == 0;
}
