/* SV-COMP style with reach_error defined by the program as an
 * __assert_fail call: reaching it is an ordinary assert error.
 * expect-completed: 3
 * expect-error: assert 7 1
 * expect-tests: 4 */
extern void __assert_fail(const char *, const char *, unsigned int, const char *) __attribute__((noreturn));
void reach_error(void) { __assert_fail("0", "svcomp_reach_assert.c", 4, "reach_error"); }
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int cond);

int main(void) {
  int n = __VERIFIER_nondet_int();
  __VERIFIER_assume(n > 0);
  __VERIFIER_assume(n < 5);
  int sum = 0;
  for (int i = 1; i <= n; i++)
    sum += i;
  if (sum == 6)
    reach_error();
  return 0;
}
