/* setjmp and longjmp: a non-local return from two calls down, on either
 * side of a symbolic branch, past a frame with a local array; longjmp with
 * 0 makes setjmp return 1, and a volatile local keeps its last value.
 * expect-completed: 3
 * expect-tests: 3
 */
#include <setjmp.h>
#include <klee/klee.h>

static jmp_buf env;

static int check(int x) {
  if (x > 100)
    longjmp(env, 2);
  if (x < 0)
    longjmp(env, 0);
  return x;
}

static int scan(int x) {
  volatile char pad[32];
  pad[0] = 1;
  return check(x) + pad[0];
}

int main(void) {
  int x = klee_int("x");
  volatile int stage = 0;
  int r = setjmp(env);
  if (r == 0) {
    stage = 1;
    scan(x);
    return 0;
  }
  if (r == 1)
    return stage == 1 ? 10 : 4;
  if (r == 2)
    return stage == 1 ? 20 : 5;
  return 6;
}
