//! C programs more than one test file runs.

/// A loop on a symbolic bound: a path per iteration count, unbounded
/// without a limit.
pub const SPIN: &str = r#"
#include <klee/klee.h>
int main(void) {
  unsigned n = (unsigned)klee_int("n");
  unsigned s = 0;
  for (unsigned i = 0; i < n; i++) s += i;
  return (int)(s & 1);
}
"#;

/// A loop reading fresh input on every iteration: under `dfs` it piles up
/// thousands of pending paths, each with a long path condition and each
/// needing a solver call for its test.
pub const FRESH_INPUT_LOOP: &str = r#"
#include <klee/klee.h>
int main(void) {
  int sum = 0, n = 0;
  while (n < 100000) {
    int v = klee_int("v");
    if (v < 0 || v > 10) continue;
    sum += v; n++;
    if (sum > 3 * n) sum -= 2;
  }
  return sum & 1;
}
"#;
