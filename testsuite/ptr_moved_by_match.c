/* A pointer moved by symbolic matches without a branch (`args += matched`,
 * as expr's scanner of its arguments does), then read through again and
 * again: the first read forks once per word it may point to (3), and on
 * each of those paths the pointer has one address, so the reads after it
 * are at a known place. A digit looked up at a symbolic index that stays
 * symbolic (its class: 2 paths each) shows a pointer with several
 * addresses still works. 6 paths, exit code twice the word's length plus the
 * class.
 * expect-completed: 6
 * expect-tests: 6
 */
#include <klee/klee.h>

static const char *words[] = {"a", "bc", "def", "ghij"};

int main(void) {
  char c[3];
  klee_make_symbolic(c, sizeof c, "c");
  const char **args = words;
  args += (c[0] == '+');
  args += (c[1] == '-');
  unsigned long n = 0;
  while ((*args)[n] != '\0')
    n++;
  int digit = "0123"[c[2] & 3] - '0';
  if (digit >= 2)
    return (int)n * 2 + 1;
  return (int)n * 2;
}
