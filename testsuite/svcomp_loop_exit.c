/* SV-COMP style: the error sits after a loop whose guard is a fresh
 * nondet value, so only a path that leaves the loop can reach it. A search
 * that always takes the loop side first never gets there without a bound
 * (tests/runs.rs checks that the default search does, unbounded).
 * mnemo-args: --max-depth 8
 * expect-completed: 7
 * expect-error: reach 22 7
 * expect-early: max-depth 2
 * expect-tests: 16
 */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int key = __VERIFIER_nondet_int();
  int rounds = 0;
  while (__VERIFIER_nondet_int()) {
    rounds++;
  }
  /* Reached on the loop's exit side only. */
  if (key == 42) {
    reach_error();
    return 1;
  }
  return 0;
}
