/* GCC vector types (vector_size(16)) at -O0: element-wise arithmetic,
 * comparisons, subscripts with a symbolic index (read and written),
 * __builtin_shufflevector, bitcasts between vector shapes, float vectors,
 * and vectors passed by value (a v4si, and a struct of two floats, which
 * the ABI passes as <2 x float>). Asserts that always hold check each
 * against scalar code without forking. Each lane of the division is
 * checked in turn: 4 paths end dividing by a zero lane, 1 goes on. Then
 * lane 1 negative (2) x byte 5 is 0xab (2) x b[i] == 7 (2) = 8 paths,
 * each forking at the last assert (i == 3 or not).
 * expect-completed: 8
 * expect-error: div-by-zero 37 4
 * expect-error: assert 58 8
 * expect-tests: 20
 */
#include <assert.h>
#include <klee/klee.h>

typedef int v4si __attribute__((vector_size(16)));
typedef unsigned char v16qu __attribute__((vector_size(16)));
typedef long long v2di __attribute__((vector_size(16)));
typedef float v4sf __attribute__((vector_size(16)));

struct pt {
  float x, y;
};

static v4si twice(v4si v) { return v + v; }

static float dot(struct pt p, struct pt q) { return p.x * q.x + p.y * q.y; }

int main(void) {
  v4si a;
  klee_make_symbolic(&a, sizeof a, "a");
  int i = klee_range(0, 4, "i");
  int r = 0;

  v4si q = (v4si){12, 12, 12, 12} / (a & 3);
  v4si b = a * 3 + (v4si){1, 2, 3, 4};
  assert(b[2] == a[2] * 3 + 3 && q[0] == 12 / (a[0] & 3));
  v4si t = twice(b);
  assert(t[1] == 2 * b[1]);
  v4si neg = a < (v4si){0, 0, 0, 0};
  if (neg[1])
    r |= 1;
  v4si s = __builtin_shufflevector(a, b, 3, 4, 1, 6);
  assert(s[0] == a[3] && s[1] == b[0] && s[2] == a[1] && s[3] == b[2]);
  v16qu bytes = (v16qu)a;
  if (bytes[5] == 0xab)
    r |= 2;
  v2di wide = (v2di)a;
  assert(wide[1] == (long long)(((unsigned long long)(unsigned)a[3] << 32) | (unsigned)a[2]));
  v4sf f = __builtin_convertvector((v4si){1, 2, 3, 4}, v4sf) * 0.5f;
  struct pt p = {f[0], f[3]}, u = {4.0f, 1.0f};
  assert(dot(p, u) == 4.0f);
  if (b[i] == 7)
    r |= 4;
  a[i] = 1000;
  assert(a[3] != 1000);
  return r;
}
