/* C11 atomics and GCC's __atomic builtins (atomicrmw, cmpxchg, fence) on a
 * symbolic x in 0..3: one thread, so each is its load, operation and
 * store. Every assertion holds for every x (none forks off an error); the
 * compare-and-swap succeeds for x == 2 alone: two paths.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <assert.h>
#include <stdatomic.h>
#include <klee/klee.h>

int main(void) {
  int x = klee_range(0, 4, "x");
  atomic_int counter = 10;
  assert(atomic_fetch_add(&counter, x) == 10);
  assert(counter == 10 + x);
  assert(atomic_fetch_sub(&counter, 1) == 10 + x);
  assert(atomic_exchange(&counter, 7 * x) == 9 + x);
  assert(atomic_fetch_or(&counter, 1) == 7 * x);
  assert(atomic_fetch_and(&counter, 6) == (7 * x | 1));
  assert(atomic_fetch_xor(&counter, 3) == ((7 * x | 1) & 6));
  assert(counter == (((7 * x | 1) & 6) ^ 3));
  int n = 12;
  assert(__atomic_fetch_nand(&n, x, __ATOMIC_SEQ_CST) == 12);
  assert(n == ~(12 & x));
  int big = 2;
  __atomic_fetch_max(&big, x, __ATOMIC_SEQ_CST);
  assert(big >= x);
  assert(big >= 2);
  int s = -1;
  __atomic_fetch_min(&s, 1, __ATOMIC_RELAXED);
  assert(s == -1);
  unsigned u = 1;
  __atomic_fetch_min(&u, 0xffffffffu, __ATOMIC_RELAXED);
  assert(u == 1);
  __atomic_fetch_max(&u, 0xfffffff0u, __ATOMIC_RELAXED);
  assert(u == 0xfffffff0u);
  atomic_thread_fence(memory_order_seq_cst);
  atomic_int c = x;
  int expected = 2;
  if (atomic_compare_exchange_strong(&c, &expected, 100)) {
    assert(c == 100);
    return 1;
  }
  assert(expected == x);
  assert(c == x);
  return 0;
}
