/* What the process keeps of itself and sees of its machine, for mnemo's
 * system calls (mnemo_syscall.c): signal actions, the mask of blocked
 * signals and the alternate stack, kept and given back as the kernel
 * keeps them though no signal is delivered; and the machine's facts,
 * fixed so that runs are deterministic. */
#include "mnemo_fs.h"
#include "ksigaction.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

/* Signals are not delivered, but what a program sets is kept and given
 * back: each signal's action and the mask of blocked signals, as the
 * kernel keeps them (a program asks for the handler it inherited, or
 * saves the mask to restore it). The kernel's sigset is 8 bytes. */
static struct k_sigaction actions[_NSIG];
static unsigned long blocked;
#define UNBLOCKABLE (1UL << (SIGKILL - 1) | 1UL << (SIGSTOP - 1))

long __mnemo_sigaction(long sig, const struct k_sigaction *act,
                       struct k_sigaction *old, unsigned long size) {
  if (size != sizeof blocked || sig < 1 || sig >= _NSIG)
    return -EINVAL;
  if (act && (sig == SIGKILL || sig == SIGSTOP))
    return -EINVAL;
  struct k_sigaction was = actions[sig];
  if (act)
    actions[sig] = *act;
  if (old)
    *old = was;
  return 0;
}

long __mnemo_sigprocmask(long how, const unsigned long *set, unsigned long *old,
                         unsigned long size) {
  if (size != sizeof blocked)
    return -EINVAL;
  unsigned long was = blocked;
  if (set) {
    switch (how) {
    case SIG_BLOCK: blocked |= *set; break;
    case SIG_UNBLOCK: blocked &= ~*set; break;
    case SIG_SETMASK: blocked = *set; break;
    default: return -EINVAL;
    }
    blocked &= ~UNBLOCKABLE;
  }
  if (old)
    *old = was;
  return 0;
}

/* Signals are not delivered, so no handler ever runs on the alternate
 * stack; the one set is kept and given back, as the kernel does. */
static stack_t alt_stack = {.ss_flags = SS_DISABLE};

long __mnemo_sigaltstack(const stack_t *ss, stack_t *old) {
  stack_t was = alt_stack;
  if (ss) {
    if (ss->ss_flags & ~(SS_DISABLE | SS_FLAG_BITS))
      return -EINVAL;
    if (ss->ss_flags & SS_DISABLE)
      alt_stack = (stack_t){.ss_flags = SS_DISABLE};
    else if (ss->ss_size < MINSIGSTKSZ)
      return -ENOMEM;
    else
      alt_stack = *ss;
  }
  if (old)
    *old = was;
  return 0;
}

/* The machine a run sees: fixed, so runs are deterministic. */
long __mnemo_sys_uname(struct utsname *u) {
  mnemo_uname(u);
  return 0;
}

long __mnemo_sysinfo(struct sysinfo *s) {
  mnemo_sysinfo(s);
  return 0;
}

/* One processor: the first bit of the mask. */
long __mnemo_getaffinity(unsigned long len, unsigned char *mask) {
  if (len < sizeof(long))
    return -EINVAL;
  memset(mask, 0, len);
  mask[0] = 1;
  return sizeof(long);
}

long __mnemo_statfs(struct statfs *st) {
  mnemo_statfs(st);
  return 0;
}

/* Whether the kernel would discard `sig` sent to the process: its action
 * is SIG_IGN, or the default one and that ignores it. */
int __mnemo_discarded(long sig) {
  void (*handler)(int) = actions[sig].handler;
  if (handler == SIG_IGN)
    return 1;
  return handler == SIG_DFL &&
         (sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT);
}
