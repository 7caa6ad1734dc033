/* A 1,024-byte local array made symbolic and read at a symbolic index,
 * as KLEE harnesses often do: its bytes are written into the array's
 * zeroed contents, and each read at a symbolic index goes through all
 * of them. Both sides of each comparison are feasible (the solver took
 * more than 30 s to find a value for such a read, and the engine gave up
 * the side with the byte equal). A second read through a byte written at
 * a symbolic place after the inputs, and a third past a 600-byte copy.
 * expect-completed: 4
 * expect-tests: 4
 */
#include <klee/klee.h>
#include <string.h>

int main(void) {
  unsigned char big[1024], copy[1024];
  unsigned short i;
  unsigned char k;
  klee_make_symbolic(big, sizeof big, "big");
  klee_make_symbolic(&i, sizeof i, "i");
  klee_make_symbolic(&k, sizeof k, "k");
  if (big[i % 1024] != 5)
    return 0;
  big[k] = 7;
  if (big[(i + 1) % 1024] == 7)
    return 1;
  memcpy(copy, big, 600);
  if (copy[i % 600] == 5)
    return 2;
  return 3;
}
