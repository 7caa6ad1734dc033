/* klee_make_symbolic on part of an object: the middle field of a struct and
 * a two-byte slice of an array; the concrete parts keep their values.
 * expect-completed: 8
 * expect-tests: 8
 */
#include <assert.h>
#include <klee/klee.h>

struct record {
  int head;
  int mid;
  int tail;
};

int main(void) {
  struct record rec = {111, 0, 333};
  char bytes[6] = {'a', 'b', 'c', 'd', 'e', 'f'};
  klee_make_symbolic(&rec.mid, sizeof rec.mid, "mid");
  klee_make_symbolic(bytes + 2, 2, "slice");
  assert(rec.head == 111 && rec.tail == 333);
  assert(bytes[0] == 'a' && bytes[5] == 'f');
  int r = 0;
  if (rec.mid > rec.head)
    r |= 1;
  if (bytes[2] == bytes[1])
    r |= 2;
  if (bytes[3] == 'z')
    r |= 4;
  return r;
}
