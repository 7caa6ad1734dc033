/* A symbolic index into a table of pointers to 24 distinct objects and a
 * null: one path per object (a fork has at most 16 targets, and its last
 * side forks again over the rest: none is taken for "in no object"), and
 * the null dereference.
 * expect-completed: 24
 * expect-error: null 42 1
 * expect-tests: 25
 */
#include <stddef.h>
#include <klee/klee.h>

static int g0 = 0;
static int g1 = 1;
static int g2 = 2;
static int g3 = 3;
static int g4 = 4;
static int g5 = 5;
static int g6 = 6;
static int g7 = 7;
static int g8 = 8;
static int g9 = 9;
static int g10 = 10;
static int g11 = 11;
static int g12 = 12;
static int g13 = 13;
static int g14 = 14;
static int g15 = 15;
static int g16 = 16;
static int g17 = 17;
static int g18 = 18;
static int g19 = 19;
static int g20 = 20;
static int g21 = 21;
static int g22 = 22;
static int g23 = 23;

static int *const table[25] = {&g0, &g1, &g2, &g3, &g4, &g5, &g6, &g7, &g8, &g9, &g10, &g11, &g12, &g13, &g14, &g15, &g16, &g17, &g18, &g19, &g20, &g21, &g22, &g23, NULL};

int main(void) {
  int k = klee_range(0, 25, "k");
  int *p = table[k];
  return *p;
}
