/* A pointer into a table of operators, one slot further for each input
 * byte equal to an operator's character (as GNU expr finds its operator).
 * Where the path has ruled out the operators of bytes 0 and 3 and ties
 * bytes 1 and 2 together, the pointer can still move two slots, but only
 * by changing both of those bytes at once: the engine must not take it for
 * fixed, and the program's branch on the operator found takes both ways.
 * 3 paths return 1 (an operator at byte 0 or 3), 1 returns 0 (the tie
 * broken), 2 return 2 or 3 (no operator, or '+' and '-' together).
 * expect-completed: 6
 * expect-tests: 6
 */
#include <klee/klee.h>

struct op {
  char name;
  int prec;
};

static const struct op ops[] = {{'.', 0}, {'(', 0}, {'+', 1}, {'-', 1}, {'*', 2}};

int main(void) {
  char s[4];
  klee_make_symbolic(s, sizeof s, "s");
  int k = (s[0] == '(') + (s[0] == ')') + (s[1] == '+') + (s[2] == '-') +
          (s[3] == '*');
  if (s[0] == '(' || s[0] == ')' || s[3] == '*')
    return 1;
  if ((s[1] == '+') != (s[2] == '-'))
    return 0;
  const struct op *p = &ops[k];
  if (p->prec == 1)
    return 2;
  return 3;
}
