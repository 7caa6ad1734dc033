/* A call through a table of 20 distinct functions at a symbolic index:
 * one path per function, though a fork has at most 16 targets (its last
 * side forks again over the rest).
 * expect-completed: 20
 * expect-tests: 20
 */
#include <klee/klee.h>

static int f0(void) { return 0; }
static int f1(void) { return 1; }
static int f2(void) { return 2; }
static int f3(void) { return 3; }
static int f4(void) { return 4; }
static int f5(void) { return 5; }
static int f6(void) { return 6; }
static int f7(void) { return 7; }
static int f8(void) { return 8; }
static int f9(void) { return 9; }
static int f10(void) { return 10; }
static int f11(void) { return 11; }
static int f12(void) { return 12; }
static int f13(void) { return 13; }
static int f14(void) { return 14; }
static int f15(void) { return 15; }
static int f16(void) { return 16; }
static int f17(void) { return 17; }
static int f18(void) { return 18; }
static int f19(void) { return 19; }

static int (*const table[20])(void) = {f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19};

int main(void) {
  int k = klee_range(0, 20, "k");
  return table[k]();
}
