/* klee_define_fixed_object: a device's registers at an address the
 * program names, zeroed, read and written like any object. A second
 * object beside the first in the same page is fine; one overlapping
 * either, or in the null page or among the engine's addresses (the
 * functions'), is an error of kind "user", natively too (where the pages
 * are mapped at that address).
 * expect-completed: 2
 * expect-error: user 25 1
 * expect-error: user 27 1
 * expect-error: user 29 1
 * expect-tests: 5
 */
#include <stdint.h>
#include <klee/klee.h>

#define DEVICE ((volatile uint32_t *)0x40000000u)

int main(void) {
  klee_define_fixed_object((void *)DEVICE, 16);
  klee_define_fixed_object((void *)(DEVICE + 4), 8);
  unsigned v = (unsigned)klee_int("v");
  DEVICE[1] = v;
  DEVICE[4] = DEVICE[0] + 1;
  if (v == 8)
    klee_define_fixed_object((void *)(DEVICE + 5), 8);
  if (v == 9)
    klee_define_fixed_object((void *)16, 4);
  if (v == 10)
    klee_define_fixed_object((void *)0x8000010, 4);
  if (DEVICE[1] == 7)
    return (int)DEVICE[4] + 1;
  return (int)DEVICE[0];
}
