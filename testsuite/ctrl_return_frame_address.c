/* __builtin_return_address and __builtin_frame_address (LLVM's
 * llvm.returnaddress and llvm.frameaddress), which logging, allocation
 * wrappers and stack checks call: a function's return address is not
 * null, the same from one caller each time, and another from another
 * caller; a callee's frame lies below its caller's, as on the native
 * stack. Their values are the engine's own (natively, where the code and
 * the stack are), so only these facts are printed. A symbolic byte then
 * decides a branch: two paths.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <stdio.h>

__attribute__((noinline)) static void *who_called(void) {
  return __builtin_return_address(0);
}

__attribute__((noinline)) static void *first(void) { return who_called(); }
__attribute__((noinline)) static void *second(void) { return who_called(); }

__attribute__((noinline)) static int below(void *caller_frame) {
  void *mine = __builtin_frame_address(0);
  return mine != 0 && (char *)mine < (char *)caller_frame &&
         __builtin_frame_address(1) == caller_frame;
}

int main(void) {
  char c;
  klee_make_symbolic(&c, sizeof c, "c");
  void *a = first(), *b = first(), *d = second();
  printf("not null %d, same caller same %d, other caller other %d\n", a != 0, a == b, a != d);
  printf("callee's frame below %d\n", below(__builtin_frame_address(0)));
  if (c == 'r')
    puts("r");
  else
    puts("not r");
  return 0;
}
