/* exit(3) as musl's, without the ELF finaliser arrays (there is no ELF
 * image): the atexit handlers, then stdio's buffers, then _Exit. The
 * handlers and the flush are weak, so a program that uses neither atexit
 * nor stdio links neither. */
#include <stdlib.h>

static void nothing(void) {}
weak_alias(nothing, __funcs_on_exit);
weak_alias(nothing, __stdio_exit);

_Noreturn void exit(int code) {
  __funcs_on_exit();
  __stdio_exit();
  _Exit(code);
}
