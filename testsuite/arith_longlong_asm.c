/* Double-word arithmetic and bit scans in x86-64 inline assembly, written
 * as GMP's longlong.h writes them (gnulib copies it for factor): the engine
 * rewrites each into ordinary instructions, and every path's exit code is
 * checked against the real instructions by the native replay.
 * expect-completed: 8
 * expect-tests: 8
 */
#include <klee/klee.h>
#include <stdint.h>

#define add_ssaaaa(sh, sl, ah, al, bh, bl)                                     \
  __asm__("addq %5,%q1\n\tadcq %3,%q0"                                        \
          : "=r"(sh), "=&r"(sl)                                                \
          : "0"((uint64_t)(ah)), "rme"((uint64_t)(bh)), "%1"((uint64_t)(al)), \
            "rme"((uint64_t)(bl)))
#define sub_ddmmss(sh, sl, ah, al, bh, bl)                                     \
  __asm__("subq %5,%q1\n\tsbbq %3,%q0"                                        \
          : "=r"(sh), "=&r"(sl)                                                \
          : "0"((uint64_t)(ah)), "rme"((uint64_t)(bh)), "1"((uint64_t)(al)),  \
            "rme"((uint64_t)(bl)))
#define umul_ppmm(w1, w0, u, v)                                                \
  __asm__("mulq\t%3"                                                           \
          : "=a"(w0), "=d"(w1)                                                 \
          : "%0"((uint64_t)(u)), "rm"((uint64_t)(v)))

int main(void) {
  uint64_t a, b, hi, lo, sh, sl, dh, dl;
  klee_make_symbolic(&a, sizeof a, "a");
  klee_make_symbolic(&b, sizeof b, "b");

  /* A constant factor keeps the question linear, and easy for the solver. */
  umul_ppmm(hi, lo, a, 6);
  if (hi == 3)
    return 1; /* a * 6 >= 3 * 2^64: a >= 2^63 */
  add_ssaaaa(sh, sl, 0, a, 0, b);
  if (sh != 0)
    return 2;
  sub_ddmmss(dh, dl, 0, a, 0, b);
  if (dh == 0)
    return 3; /* no borrow: a >= b */
  /* Here a < b and a + b does not carry. */
  if (a != 0) {
    int zeros;
    __asm__("bsf\t%1, %q0" : "=r"(zeros) : "rm"(a));
    if (zeros == 7)
      return 4;
  }
  if (b != 0) {
    uint64_t top;
    __asm__("bsr\t%1,%0" : "=r"(top) : "rm"(b));
    if (top == 62)
      return 5;
  }
  (void)lo;
  (void)sl;
  (void)dl;
  return 0;
}
