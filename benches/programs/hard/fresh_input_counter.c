/* A long loop on fresh input that updates global counters: each round reads
 * a new value and either stops, testing a counter, or adds the value to one.
 * The path condition grows by one constraint a round, each round's question
 * is about an input no constraint reads yet, and every path writes the
 * globals after its fork. */
extern int __VERIFIER_nondet_int(void);

int counts[4];

int main(void) {
  for (int i = 0; i < 1000; i++) {
    int x = __VERIFIER_nondet_int();
    if (x < i)
      return counts[i & 3] > 1000;
    counts[i & 3] += x;
  }
  return 0;
}
