/*
 * The model's machine in a native run: uname names the machine the engine
 * models, and getrandom gives its fixed bytes, so that a test of a program
 * that prints either (`uname -a`, a name `mktemp` makes, `shuf`'s order)
 * prints what the engine predicted. Defined in the program, these take the
 * place of the C library's functions for the program's own calls.
 */
#define _GNU_SOURCE
#include <sys/random.h>
#include <sys/utsname.h>

#include "mnemo/model.h"

int uname(struct utsname *u) {
  mnemo_uname(u);
  return 0;
}

ssize_t getrandom(void *buf, size_t len, unsigned flags) {
  (void)flags;
  mnemo_random(buf, len);
  return (ssize_t)len;
}
