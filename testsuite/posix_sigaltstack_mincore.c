/* Two calls gnulib's stack-overflow handler (c-stack, which grep installs
 * at start) makes: sigaltstack keeps the alternate stack it is given and
 * gives it back, and mincore says the pages of a mapping the program made
 * and touched are resident, and an unmapped address is ENOMEM. Each
 * answer that is not the kernel's exits with its own status.
 * expect-completed: 1
 * expect-tests: 1
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(void) {
  static char stack[1 << 16];
  stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack}, old;
  if (sigaltstack(&ss, 0) != 0)
    return 1;
  if (sigaltstack(0, &old) != 0 || old.ss_sp != stack || old.ss_size != sizeof stack ||
      (old.ss_flags & SS_DISABLE))
    return 2;
  stack_t tiny = {.ss_sp = stack, .ss_size = 16};
  if (sigaltstack(&tiny, 0) != -1 || errno != ENOMEM)
    return 3;
  stack_t off = {.ss_flags = SS_DISABLE};
  if (sigaltstack(&off, &old) != 0 || old.ss_sp != stack)
    return 4;
  if (sigaltstack(0, &old) != 0 || !(old.ss_flags & SS_DISABLE))
    return 5;

  size_t page = 4096;
  char *m = mmap(0, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return 6;
  memset(m, 1, 2 * page);
  unsigned char vec[2] = {0, 0};
  if (mincore(m, 2 * page, vec) != 0 || !(vec[0] & 1) || !(vec[1] & 1))
    return 7;
  if (munmap(m, 2 * page) != 0)
    return 8;
  if (mincore(m, page, vec) != -1 || errno != ENOMEM)
    return 9;
  return 0;
}
