/* A loop on fresh input with a growing path condition: each iteration reads
 * a nondeterministic value, constrains it and folds it into a running sum
 * that later branches test. */
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int sum = 0;
  for (int n = 1; n <= 8; n++) {
    int v = __VERIFIER_nondet_int();
    if (v < 0 || v > 10)
      return -1;
    sum += v;
    if (sum > 3 * n)
      sum -= 2;
  }
  return sum > 20;
}
