/* SV-COMP style: __VERIFIER_nondet_int inputs, __VERIFIER_assume, and a
 * reach_error that the program declares but does not define (kind reach).
 * expect-completed: 1
 * expect-error: reach 20 1
 * expect-tests: 2
 */
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int cond);
extern void reach_error(void);

int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  __VERIFIER_assume(x >= 0);
  __VERIFIER_assume(x < 100);
  __VERIFIER_assume(y >= 0);
  __VERIFIER_assume(y < 100);
  int z = x * 2 + y;
  if (z == 250) {
    reach_error();
    return 1;
  }
  return 0;
}
