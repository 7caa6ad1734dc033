/* What the process keeps of itself and sees of its machine, for mnemo's
 * system calls (mnemo_syscall.c): signal actions, each thread's mask of
 * blocked signals, the signals pending and the alternate stack, kept and
 * given back as the kernel keeps them, a signal the process sends itself
 * delivered as the kernel delivers it, in the thread the kernel would
 * choose (the timers, mnemo_timers.c, send theirs here), and waits that
 * another thread, a signal or a timer ends; and the machine's facts,
 * fixed so that runs are deterministic. */
#include "mnemo_fs.h"
#include "mnemo_thread.h"
#include "futex.h"
#include "ksigaction.h"
#include "syscall.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <ucontext.h>

/* Each signal's action, and the signals sent to the process as a whole
 * (kill, a timer) that no thread has taken yet, as the kernel
 * keeps them (a program asks for the handler it inherited); each
 * thread's mask and the signals sent to it alone are its own
 * (mnemo_thread.h). The kernel's sigset is 8 bytes. No other process
 * exists, so only the process itself sends signals: with kill, raise or
 * pthread_kill, a write to a pipe no one reads, or its real timer. */
static struct k_sigaction actions[_NSIG] = {
    /* As the replay starts the program (stdout is a pipe its reader
     * closes after the bytes a path may write: a write then fails). */
    [SIGPIPE] = {.handler = SIG_IGN},
};
static unsigned long shared;
static struct mnemo_sent shared_sent[_NSIG];
struct mnemo_signals __mnemo_main_signals;
#define UNBLOCKABLE (1UL << (SIGKILL - 1) | 1UL << (SIGSTOP - 1))
#define BIT(sig) (1UL << ((sig) - 1))

static struct mnemo_signals *me(void) { return mnemo_signals_of(__pthread_self()); }

/* Bumped at each thing a thread waiting for ever may wait for: a
 * signal's handler run or a signal made pending, bytes written into a
 * pipe, a pipe's write end closed. A waiting thread waits on it as on a
 * futex, so another thread's event wakes it to look again; with no other
 * thread, nothing can, and the engine ends the wait as a path waiting for
 * ever. */
static volatile int events;

/* The siginfo of `sig` sent as `by` says: by the process itself (run
 * by nobody), unless the kernel sent it (an interval timer) or a
 * POSIX timer did, whose signal is taken now. */
static void describe(siginfo_t *info, long sig, struct mnemo_sent by) {
  memset(info, 0, sizeof *info);
  info->si_signo = sig;
  info->si_code = by.code;
  if (by.code == SI_TIMER) {
    info->si_timerid = by.timer;
    info->si_overrun = __mnemo_timer_taken(by.timer);
    info->si_value = by.value;
  } else if (by.code != SI_KERNEL) {
    info->si_pid = MNEMO_PID;
    info->si_uid = 65534;
  }
}

/* The thread's alternate stack as sigaltstack and a handler's context
 * give it. */
static stack_t alt_stack_of(const struct mnemo_signals *s) {
  if (s->alt_set)
    return s->alt;
  return (stack_t){.ss_flags = SS_DISABLE | s->alt.ss_flags};
}

/* Runs `sig`'s action now, in the running thread: a handler is called as
 * the kernel calls it (with its action's mask and, unless SA_NODEFER, the
 * signal itself blocked while it runs; reset to the default first with
 * SA_RESETHAND; given a siginfo and a context with SA_SIGINFO), the
 * default action ends the process, which the engine reports as a path
 * ended early ("signalled"), unless it ignores the signal. */
static long deliver(long sig, struct mnemo_sent by) {
  struct mnemo_signals *s = me();
  struct k_sigaction a = actions[sig];
  siginfo_t info;
  /* Taken: a timer's overruns are counted until now. */
  describe(&info, sig, by);
  if (a.handler == SIG_IGN || (a.handler == SIG_DFL && __mnemo_discarded(sig)))
    return 0;
  if (a.handler == SIG_DFL)
    return __mnemo_kernel(SYS_kill, MNEMO_PID, sig, 0, 0, 0, 0);
  unsigned long saved = s->blocked;
  s->blocked |= a.mask[0] | (unsigned long)a.mask[1] << 32;
  if (!(a.flags & SA_NODEFER))
    s->blocked |= BIT(sig);
  s->blocked &= ~UNBLOCKABLE;
  if (a.flags & SA_RESETHAND) {
    actions[sig].handler = SIG_DFL;
    actions[sig].flags &= ~SA_SIGINFO;
  }
  /* The context gives the alternate stack as it was when the signal
   * came; one with SS_AUTODISARM is disarmed until the handler returns,
   * whether or not the handler runs on it (as Linux does). */
  stack_t alt = s->alt, given = alt_stack_of(s);
  int alt_set = s->alt_set, disarmed = (alt.ss_flags & SS_AUTODISARM) != 0;
  if (disarmed)
    s->alt = (stack_t){0}, s->alt_set = 0;
  if (a.flags & SA_SIGINFO) {
    ucontext_t context;
    memset(&context, 0, sizeof context);
    memcpy(&context.uc_sigmask, &saved, sizeof saved);
    context.uc_stack = given;
    ((void (*)(int, siginfo_t *, void *))a.handler)(sig, &info, &context);
  } else {
    a.handler(sig);
  }
  if (disarmed)
    s->alt = alt, s->alt_set = alt_set;
  s->blocked = saved;
  s->handled++;
  s->restarts = (a.flags & SA_RESTART) != 0;
  __mnemo_event();
  __mnemo_deliver_pending();
  return 0;
}

/* Delivers each pending signal the running thread's mask no longer
 * blocks, as the kernel does on the way back to the program: those sent
 * to the thread first, then the process's, the lowest first of each. */
void __mnemo_deliver_pending(void) {
  struct mnemo_signals *s = me();
  for (;;) {
    unsigned long own = s->pending & ~s->blocked, process = shared & ~s->blocked;
    if (own) {
      long sig = __builtin_ctzl(own) + 1;
      s->pending &= ~BIT(sig);
      deliver(sig, s->sent[sig]);
    } else if (process) {
      long sig = __builtin_ctzl(process) + 1;
      shared &= ~BIT(sig);
      deliver(sig, shared_sent[sig]);
    } else {
      return;
    }
  }
}

/* Thread `t` is sent `sig` alone (SI_TKILL from tkill, SI_USER for a
 * write's SIGPIPE, SI_TIMER from a timer): discarded where its action
 * ignores it (0), else (1) pending while `t` blocks it (once, as a
 * standard signal is), else delivered as soon as `t` runs: now if it is
 * the running thread; another's wait ends (EINTR) so that it goes on and
 * takes it. A blocked signal is kept even where its action ignores it
 * now: the action may change before it is unblocked (delivery discards
 * it if not). */
/* Ends thread `t`'s futex wait, if it waits (EINTR), so that it goes on
 * and takes what was sent to it. */
static void interrupt(struct pthread *t) { __mnemo_kernel(SYS_tkill, t->tid, 0, 0, 0, 0, 0); }

static int signal_thread(struct pthread *t, long sig, struct mnemo_sent by) {
  struct mnemo_signals *s = mnemo_signals_of(t);
  int blocks = (s->blocked & BIT(sig)) != 0;
  if (!blocks && __mnemo_discarded(sig))
    return 0;
  s->pending |= BIT(sig);
  s->sent[sig] = by;
  if (t == __pthread_self()) {
    __mnemo_deliver_pending();
    return 1;
  }
  /* It may wait for it in sigwait or sigsuspend. */
  __mnemo_event();
  if (!blocks)
    interrupt(t);
  return 1;
}

long __mnemo_signal_self(long sig, int code) {
  signal_thread(__pthread_self(), sig, (struct mnemo_sent){.code = code});
  return 0;
}

/* The process's thread `tid`, if there is one. */
static struct pthread *thread_of(long tid) {
  struct pthread *self = __pthread_self(), *t = self;
  while (t->tid != tid)
    if ((t = t->next) == self)
      return 0;
  return t;
}

/* tkill and tgkill: `sig` to the process's thread `tid`. */
long __mnemo_signal_tid(long tid, long sig) {
  if (sig < 0 || sig > 64)
    return -EINVAL;
  struct pthread *t = thread_of(tid);
  if (!t)
    return -ESRCH;
  if (sig)
    signal_thread(t, sig, (struct mnemo_sent){.code = SI_TKILL});
  return 0;
}

/* The process is sent `sig` (SI_USER from kill, SI_KERNEL from the real
 * interval timer, SI_TIMER from a POSIX timer): discarded where its
 * action ignores it and the main thread, which its pid names, does not
 * block it (0); else (1) pending for the process until a thread that
 * does not block it takes it: the running one now, else the first other
 * one, whose wait ends, as it goes on; or a thread's sigwait. */
static int signal_process(long sig, struct mnemo_sent by) {
  if (!(__mnemo_main_signals.blocked & BIT(sig)) && __mnemo_discarded(sig))
    return 0;
  shared |= BIT(sig);
  shared_sent[sig] = by;
  if (!(me()->blocked & BIT(sig))) {
    __mnemo_deliver_pending();
    return 1;
  }
  __mnemo_event();
  struct pthread *self = __pthread_self(), *t = self;
  while ((t = t->next) != self)
    if (!(mnemo_signals_of(t)->blocked & BIT(sig))) {
      interrupt(t);
      break;
    }
  return 1;
}

long __mnemo_signal_process(long sig, int code) {
  signal_process(sig, (struct mnemo_sent){.code = code});
  return 0;
}

/* A POSIX timer's expiry: `sig` to thread `tid`, or to the process where
 * `tid` is 0. Whether it was not discarded. */
int __mnemo_signal_timer(long tid, long sig, int timer, union sigval value) {
  struct mnemo_sent by = {.code = SI_TIMER, .timer = timer, .value = value};
  if (!tid)
    return signal_process(sig, by);
  struct pthread *t = thread_of(tid);
  return t && signal_thread(t, sig, by);
}

/* Whether `sig` sent now to thread `tid` (the process where `tid` is 0)
 * would change anything: the thread exists, and the signal is neither
 * discarded nor pending already. With `sig` 0: whether the thread
 * exists. */
int __mnemo_signal_matters(long tid, long sig) {
  struct pthread *t = tid ? thread_of(tid) : &__mnemo_self;
  if (!t)
    return 0;
  if (!sig)
    return 1;
  struct mnemo_signals *s = mnemo_signals_of(t);
  unsigned long pending = tid ? s->pending : shared;
  return !(pending & BIT(sig)) && ((s->blocked & BIT(sig)) || !__mnemo_discarded(sig));
}

void __mnemo_event(void) {
  events++;
  __mnemo_futex(&events, FUTEX_WAKE | FUTEX_PRIVATE, INT_MAX, 0, 0, 0);
}

/* Waits until another thread makes an event (0: the caller looks again)
 * or a timer expires, which happens only where no thread can run (time
 * passes then, in the futex wait): -EINTR once a handler ran in this
 * thread meanwhile (where `restartable`, as a read is, one installed
 * with SA_RESTART gives 0 instead), else 0. Without either, it waits for
 * ever. */
long __mnemo_wait(int restartable) {
  struct mnemo_signals *s = me();
  int seen = events, before = s->handled;
  __mnemo_futex(&events, FUTEX_WAIT | FUTEX_PRIVATE, seen, 0, 0, 0);
  if (s->handled == before)
    return 0;
  return restartable && s->restarts ? 0 : -EINTR;
}

/* pause: until a signal's handler has run in this thread. */
long __mnemo_pause(void) {
  int before = me()->handled;
  while (me()->handled == before) {
    long r = __mnemo_wait(0);
    if (r)
      return r;
  }
  return -EINTR;
}

/* sigsuspend: with `mask` in place of the thread's, until a signal's
 * handler has run in it (a pending one the mask lets through, a timer's,
 * one another thread sends), then EINTR. */
long __mnemo_sigsuspend(const unsigned long *mask, unsigned long size) {
  if (size != sizeof shared)
    return -EINVAL;
  struct mnemo_signals *s = me();
  unsigned long saved = s->blocked;
  s->blocked = *mask & ~UNBLOCKABLE;
  int before = s->handled;
  while (s->handled == before) {
    if ((s->pending | shared) & ~s->blocked)
      __mnemo_deliver_pending();
    else
      __mnemo_wait(0);
  }
  s->blocked = saved;
  return -EINTR;
}

/* sigtimedwait (sigwait and sigwaitinfo too): a pending signal of the
 * set is taken, the lowest, one sent to the thread before the process's,
 * without its action running; until one is, the thread waits while
 * others run, and then for the timers that expire within the time limit,
 * if any (EAGAIN once it passes with none of the set pending). A handler
 * run meanwhile ends the wait with EINTR. */
long __mnemo_sigtimedwait(const unsigned long *set, siginfo_t *info, const struct timespec *limit,
                          unsigned long size) {
  if (size != sizeof shared)
    return -EINVAL;
  if (limit && (unsigned long)limit->tv_nsec >= 1000000000)
    return -EINVAL;
  struct mnemo_signals *s = me();
  unsigned long want = *set & ~UNBLOCKABLE;
  const long long ns = 1000000000;
  long long left = limit ? limit->tv_sec * ns + limit->tv_nsec : -1;
  int before = s->handled;
  while (!((s->pending | shared) & want)) {
    if (s->handled != before)
      return -EINTR;
    if (left < 0) {
      __mnemo_wait(0);
      continue;
    }
    int seen = events;
    /* The limit is a time to wait, which passes natively: the timers
     * that expire within it do, and then it runs out (EAGAIN). */
    long long next = __mnemo_next_expiry();
    int timer_first = next && next <= left;
    struct timespec wait = {timer_first ? 0 : left / ns, timer_first ? 0 : left % ns};
    if (__mnemo_futex(&events, FUTEX_WAIT | FUTEX_PRIVATE, seen, (long)&wait, 0, 0) !=
        -ETIMEDOUT)
      continue;
    if (!timer_first) {
      __mnemo_time_advance(left);
      return -EAGAIN;
    }
    left -= __mnemo_time_passes();
  }
  unsigned long *from = s->pending & want ? &s->pending : &shared;
  long sig = __builtin_ctzl(*from & want) + 1;
  *from &= ~BIT(sig);
  siginfo_t taken;
  describe(info ? info : &taken, sig, from == &shared ? shared_sent[sig] : s->sent[sig]);
  return sig;
}

/* The blocked signals pending for the thread or the process. */
long __mnemo_sigpending(unsigned long *set, unsigned long size) {
  if (size != sizeof shared)
    return -EINVAL;
  struct mnemo_signals *s = me();
  *set = (s->pending | shared) & s->blocked;
  return 0;
}

long __mnemo_sigaction(long sig, const struct k_sigaction *act,
                       struct k_sigaction *old, unsigned long size) {
  if (size != sizeof shared || sig < 1 || sig >= _NSIG)
    return -EINVAL;
  if (act && (sig == SIGKILL || sig == SIGSTOP))
    return -EINVAL;
  struct k_sigaction was = actions[sig];
  if (act)
    actions[sig] = *act;
  /* A signal pending that the new action ignores is discarded, the
   * process's and every thread's. */
  if (act && __mnemo_discarded(sig)) {
    shared &= ~BIT(sig);
    struct pthread *self = __pthread_self(), *t = self;
    do
      mnemo_signals_of(t)->pending &= ~BIT(sig);
    while ((t = t->next) != self);
  }
  if (old)
    *old = was;
  return 0;
}

/* The running thread's mask (sigprocmask is pthread_sigmask). */
long __mnemo_sigprocmask(long how, const unsigned long *set, unsigned long *old,
                         unsigned long size) {
  if (size != sizeof shared)
    return -EINVAL;
  unsigned long *blocked = &me()->blocked, was = *blocked;
  if (set) {
    switch (how) {
    case SIG_BLOCK: *blocked |= *set; break;
    case SIG_UNBLOCK: *blocked &= ~*set; break;
    case SIG_SETMASK: *blocked = *set; break;
    default: return -EINVAL;
    }
    *blocked &= ~UNBLOCKABLE;
  }
  if (old)
    *old = was;
  __mnemo_deliver_pending();
  return 0;
}

/* sigaltstack: each thread's own, as the kernel keeps it. A handler is
 * never found running on it: the engine's calls have no stack to switch,
 * so its frames are not in the stack's bytes (natively, sigaltstack would
 * say SS_ONSTACK there and refuse a change). */
long __mnemo_sigaltstack(const stack_t *ss, stack_t *old) {
  struct mnemo_signals *s = me();
  stack_t was = alt_stack_of(s);
  if (ss) {
    int mode = ss->ss_flags & ~SS_FLAG_BITS;
    /* SS_ONSTACK as a mode is an old way of saying 0, which Linux takes. */
    if (mode != 0 && mode != SS_ONSTACK && mode != SS_DISABLE)
      return -EINVAL;
    /* Linux keeps the flags beyond the mode (SS_AUTODISARM) and gives
     * them back with the stack, or with SS_DISABLE. */
    if (mode == SS_DISABLE)
      s->alt = (stack_t){0}, s->alt_set = 0;
    else if (ss->ss_size < MINSIGSTKSZ)
      return -ENOMEM;
    else
      s->alt = *ss, s->alt_set = 1;
    s->alt.ss_flags = ss->ss_flags & SS_FLAG_BITS;
  }
  if (old)
    *old = was;
  return 0;
}

/* sigaltstack as glibc, which the replay runs against, has it: the
 * kernel's checks alone (musl's own refuse SS_ONSTACK, which Linux takes
 * for 0, and look at the size before the flags). */
int sigaltstack(const stack_t *restrict ss, stack_t *restrict old) {
  return __syscall_ret(__syscall(SYS_sigaltstack, ss, old));
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
