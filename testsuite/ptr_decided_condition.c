/* A checksum of the input, and a pointer into a buffer that moves back one
 * place where the checksum is zero (as a number is written from the end
 * of a buffer, one place more for its sign). Once the path has decided
 * whether the checksum is zero, the pointer has one place on it, which the
 * facts of the path show without a solver; a second pointer moves by
 * whether the checksum is below 100, which no branch has decided, and
 * must be seen to move. 1 path has a zero checksum and returns 1; of the
 * others, 1 returns 2 (a checksum below 100) and 1 returns 3.
 * expect-completed: 3
 * expect-tests: 3
 */
#include <klee/klee.h>

static volatile int seen;

int main(void) {
  unsigned char in[4];
  klee_make_symbolic(in, sizeof in, "in");
  /* BSD's rotating checksum, as `sum` computes it. */
  unsigned short sum = 0;
  for (int i = 0; i < 4; i++)
    sum = (unsigned short)((sum >> 1) + ((sum & 1) << 15) + in[i]);
  int zero = sum == 0;
  if (zero)
    seen = 1;
  char buf[8] = "abcdefg";
  const char *p = buf + 5 - zero;
  if (*p == 'e')
    return 1;
  const char *q = buf + 2 + (sum < 100);
  if (*q == 'd')
    return 2;
  return 3;
}
