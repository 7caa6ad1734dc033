/* Inline assembly the engine knows: a compiler barrier (also one with an
 * input, as gnulib's explicit_bzero keeps its buffer alive), and the x87
 * control word saved with fnstcw and restored with fldcw, as gnulib's
 * vasnprintf does around long double formatting (the word is the default
 * one, natively as in the engine).
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>

int main(void) {
  int x = klee_range(0, 3, "x");
  unsigned short cw = 0;
  __asm__ volatile("" ::: "memory");
  __asm__ volatile("" : : "g"(&x) : "memory");
  __asm__ volatile("fnstcw %0" : "=m"(cw));
  if (cw != 0x037f)
    return 9;
  __asm__ volatile("fldcw %0" : : "m"(cw));
  if (x == 2)
    return 2;
  return 0;
}
