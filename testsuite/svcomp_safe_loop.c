/* A safe SV-COMP style program: a nondet-bounded loop keeps an invariant
 * checked with __VERIFIER_assert's usual definition; reach_error is never
 * reached, so every path completes (one per loop bound 0..5).
 * expect-completed: 6
 * expect-tests: 6
 */
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int cond);
extern void reach_error(void);

static void __VERIFIER_assert(int cond) {
  if (!cond) {
  ERROR:
    reach_error();
  }
}

int main(void) {
  int n = __VERIFIER_nondet_int();
  __VERIFIER_assume(n >= 0 && n <= 5);
  int i = 0, even = 0;
  while (i < n) {
    i++;
    even += 2;
  }
  __VERIFIER_assert(even == 2 * i);
  __VERIFIER_assert(i == n);
  return 0;
}
