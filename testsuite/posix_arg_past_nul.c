/* A program that reads a symbolic argument past its end: where the
 * first byte is NUL the argument is the empty string, yet the second is
 * still the model's, and may be 'b'. An exec cannot give a string with a
 * byte after its NUL (natively, the next string's first byte is there),
 * so the native replay starts the program with a placeholder as long as
 * the buffer and writes the model's bytes over it at main. Paths: 'a'
 * first (assert), first NUL then 'b' (assert, the one an exec cannot
 * give), neither (exit 1); all three replay natively as predicted.
 * program-args: --sym-arg 2
 * expect-completed: 1
 * expect-error: assert 21 2
 * expect-tests: 3
 */
#include <assert.h>

int main(int argc, char **argv) {
  if (argc < 2)
    return 0;
  int a = argv[1][0] == 'a';
  int b = argv[1][1] == 'b';
  assert(!(a || b));
  return 1;
}
