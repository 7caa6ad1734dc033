/* <ctype.h> classification of a symbolic byte: digit, upper, lower, space,
 * printable punctuation, other. musl computes isalpha & co. without
 * branches, except isspace, which tests ' ' apart from '\t'..'\r': the
 * space class is two paths.
 * expect-completed: 7
 * expect-tests: 7
 */
#include <assert.h>
#include <ctype.h>
#include <klee/klee.h>

int main(void) {
  unsigned char c;
  klee_make_symbolic(&c, sizeof c, "c");
  if (isdigit(c)) {
    assert(isxdigit(c) && isalnum(c));
    return 1;
  }
  if (isalpha(c)) {
    if (isupper(c))
      return 2;
    return 3;
  }
  if (isspace(c))
    return 4;
  if (isprint(c))
    return 5;
  return 6;
}
