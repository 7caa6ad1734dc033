/* __builtin_*_overflow on __int128. LLVM's result `{ i128, i1 }` is wider
 * than a register; the lowering keeps it in two and computes a product's
 * flag from the operands' 64-bit halves. Concrete operands at the edges
 * (0, +-1, the extremes, values about 2^64 and 2^127) give a hash of
 * every result and flag, which the exit status carries and the native
 * run must match. Then symbolic operands take each side of a sum's, a
 * difference's and a product's overflow: 3 ways for the sum and the
 * difference (the two cannot both overflow), 2 for the product.
 * expect-completed: 6
 * expect-tests: 6
 */
#include <klee/klee.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

static unsigned long long hash = 1469598103934665603ull;

static void mix(u128 v, int flag) {
  unsigned long long parts[3] = {(unsigned long long)v,
                                 (unsigned long long)(v >> 64),
                                 (unsigned long long)flag};
  for (int i = 0; i < 3; i++) {
    hash ^= parts[i];
    hash *= 1099511628211ull;
  }
}

int main(void) {
  const u128 one = 1;
  const u128 edges[] = {
      0, 1, (u128)-1, 2, (u128)-2, (one << 127) - 1, one << 127,
      (one << 127) + 1, one << 64, (one << 64) - 1, (one << 64) + 1,
      (u128) - (i128)(one << 64), one << 63, 3 * (one << 62),
      (one << 96) + 12345, ((one << 64) - 1) * 3,
  };
  const int n = sizeof edges / sizeof edges[0];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      i128 x = (i128)edges[i], y = (i128)edges[j], r;
      u128 u;
      int f;
      f = __builtin_add_overflow(x, y, &r);
      mix((u128)r, f);
      f = __builtin_sub_overflow(x, y, &r);
      mix((u128)r, f);
      f = __builtin_mul_overflow(x, y, &r);
      mix((u128)r, f);
      f = __builtin_add_overflow(edges[i], edges[j], &u);
      mix(u, f);
      f = __builtin_sub_overflow(edges[i], edges[j], &u);
      mix(u, f);
      f = __builtin_mul_overflow(edges[i], edges[j], &u);
      mix(u, f);
    }

  i128 a, b, r;
  klee_make_symbolic(&a, sizeof a, "a");
  klee_make_symbolic(&b, sizeof b, "b");
  int code = 0;
  if (__builtin_add_overflow(a, b, &r))
    code |= 1;
  else if (__builtin_sub_overflow(a, b, &r))
    code |= 2;
  if (__builtin_mul_overflow(a, (i128)1000003, &r))
    code |= 4;
  return (int)(hash % 31) << 3 | code;
}
