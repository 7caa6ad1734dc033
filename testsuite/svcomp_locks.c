/* SV-COMP style: the classic "locks" pattern. Each round of a loop driven
 * by nondet values takes a lock when its condition holds and, when the same
 * condition holds again, checks that the lock is held and releases it. The
 * bug: the second condition drifts with the round number, so from the
 * second round on a lock that was never taken can be released.
 * mnemo-args: --max-depth 9
 * expect-completed: 21
 * expect-error: reach 43 2
 * expect-early: max-depth 8
 * expect-tests: 31
 */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int p1 = __VERIFIER_nondet_int();
  int p2 = __VERIFIER_nondet_int();
  int round = 0;
  int lk1, lk2;
  while (1) {
    if (__VERIFIER_nondet_int() == 0)
      break;
    lk1 = 0;
    lk2 = 0;
    if (p1 != 0)
      lk1 = 1;
    if (p2 != 0)
      lk2 = 1;
    if (p1 != 0) {
      if (lk1 != 1)
        goto ERROR;
      lk1 = 0;
    }
    if (p2 + round != 0) {
      if (lk2 != 1)
        goto ERROR;
      lk2 = 0;
    }
    round++;
  }
  return 0;
ERROR:
  reach_error();
  return 1;
}
