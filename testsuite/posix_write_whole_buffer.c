/* write hands stdout the bytes of the buffer it names, concrete and
 * symbolic alike, however many: a static buffer of 70,000 bytes holding
 * an input byte, then a struct on the stack (the replay compares them).
 * The input's first byte decides whether the struct is written: two
 * paths.
 * program-args: --sym-arg 1
 * expect-completed: 2
 * expect-tests: 2
 */
#include <unistd.h>

static char big[70000];

int main(int argc, char **argv) {
  if (argc < 2)
    return 1;
  for (unsigned i = 0; i < sizeof big; i++)
    big[i] = (char)('a' + i % 26);
  big[5] = argv[1][0];
  big[sizeof big - 1] = '\n';
  if (write(1, big, sizeof big) != (ssize_t)sizeof big)
    return 2;
  if (argv[1][0] == 'e') {
    struct {
      char tag[4];
      char input;
      char end;
    } s = {{'e', 'n', 'd', ' '}, argv[1][0], '\n'};
    if (write(1, &s, sizeof s) != (ssize_t)sizeof s)
      return 3;
  }
  return 0;
}
