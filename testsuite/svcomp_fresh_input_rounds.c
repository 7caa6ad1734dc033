/* A loop reading a fresh input each round, well past the 256 inputs up to
 * which a path keeps a model of its own: each round's question is about a
 * word that only comparisons with constants read, answered without Z3, and
 * every test gives each of up to 300 inputs a value under which the native
 * run exits as the engine's path did (the exit depends on every input).
 * expect-completed: 301
 * expect-tests: 301
 */
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int big = 0;
  for (int i = 0; i < 300; i++) {
    int x = __VERIFIER_nondet_int();
    if (x < i - 150)
      return big % 3 == 0;
    big += x > 1000;
  }
  return 2 + (big & 1);
}
