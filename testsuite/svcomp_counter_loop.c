/* SV-COMP style: a counter loop on a nondet guard; the error needs exactly
 * three rounds and then the loop's exit, so it too lies on the exit side.
 * mnemo-args: --max-depth 6
 * expect-completed: 5
 * expect-error: reach 17 1
 * expect-early: max-depth 1
 * expect-tests: 7
 */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int x = 0;
  while (__VERIFIER_nondet_int())
    x++;
  if (x == 3) {
    reach_error();
    return 1;
  }
  return 0;
}
