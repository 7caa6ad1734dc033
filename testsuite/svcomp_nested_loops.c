/* SV-COMP style: nested loops on nondet guards; the error needs two outer
 * rounds, one inner round in all, and both loops left.
 * mnemo-args: --max-depth 7
 * expect-completed: 11
 * expect-error: reach 20 2
 * expect-early: max-depth 21
 * expect-tests: 34
 */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int i = 0, j = 0;
  while (__VERIFIER_nondet_int()) {
    i++;
    while (__VERIFIER_nondet_int())
      j++;
  }
  if (i == 2 && j == 1) {
    reach_error();
    return 1;
  }
  return 0;
}
