/* The timers: the three interval timers (setitimer, and alarm over it)
 * and the POSIX timers (timer_create). The clock stands still and a
 * sleep ends at once (as the replay makes sleeps), so time passes only
 * where the process would otherwise wait for ever: then it passes to the
 * next expiry of a timer whose signal would change something, and every
 * timer on a clock that time moves advances as far. Timers on CPU-time
 * clocks (ITIMER_VIRTUAL, ITIMER_PROF, a POSIX timer on a CPU-time clock)
 * count time a run does not measure: they are kept, and never expire. */
#include "mnemo_fs.h"
#include "pthread_impl.h"
#include "syscall.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#define NS 1000000000LL

/* One timer: nanoseconds to its next expiry (0: disarmed) and between
 * expiries, whether its clock moves, what its expiry sends (`signo` to
 * the process, or to thread `tid` with SIGEV_THREAD_ID; nothing with
 * SIGEV_NONE), and, for a POSIX timer (`id` not negative), whether its
 * signal is still pending and the expiries it missed meanwhile
 * (timer_getoverrun). */
struct timer {
  long long left, interval;
  long long due; /* expiries as time passes, before they are sent */
  int id, moves;
  int notify, signo, tid;
  union sigval value;
  int queued, overrun, overrun_taken;
};

/* The interval timers: the real one sends SIGALRM from the kernel. */
static struct timer itimers[3] = {
    [ITIMER_REAL] = {.id = -1, .moves = 1, .notify = SIGEV_SIGNAL, .signo = SIGALRM},
    [ITIMER_VIRTUAL] = {.id = -1, .notify = SIGEV_SIGNAL, .signo = SIGVTALRM},
    [ITIMER_PROF] = {.id = -1, .notify = SIGEV_SIGNAL, .signo = SIGPROF},
};

/* The POSIX timers by id, as Linux numbers them (from 0, not reused);
 * a deleted one's entry is null. Each is allocated apart, so that a
 * handler making a timer while another's expiry runs it moves none. */
static struct timer **posix;
static int made;

static struct timer *posix_timer(long id) {
  return id >= 0 && id < made ? posix[id] : 0;
}

/* Whom the timer's signal goes to: its thread, or the process (0). */
static long target(const struct timer *t) { return t->notify & SIGEV_THREAD_ID ? t->tid : 0; }

/* The timer's expiry signal, `n` expiries at once: a POSIX timer whose
 * signal is still pending counts them as overruns instead. */
static void expire(struct timer *t, long long n) {
  if (t->notify == SIGEV_NONE)
    return;
  if (t->id < 0) {
    __mnemo_signal_process(t->signo, SI_KERNEL);
    return;
  }
  if (t->queued) {
    t->overrun += n > INT_MAX - t->overrun ? INT_MAX - t->overrun : n;
    return;
  }
  t->overrun = n - 1 > INT_MAX ? INT_MAX : n - 1;
  t->queued = 1;
  if (!__mnemo_signal_timer(target(t), t->signo, t->id, t->value))
    t->queued = 0;
}

/* `dt` nanoseconds pass for timer `t`, which counts the times it
 * expires in `due`. */
static void advance(struct timer *t, long long dt) {
  t->due = 0;
  if (!t->left || !t->moves)
    return;
  if (t->left > dt) {
    t->left -= dt;
    return;
  }
  long long past = dt - t->left;
  t->due = 1;
  if (t->interval) {
    t->due += past / t->interval;
    t->left = t->interval - past % t->interval;
  } else {
    t->left = 0;
  }
}

/* Nanoseconds to the next expiry of a timer whose signal would change
 * something (one not discarded and not pending already), 0 for none. */
long long __mnemo_next_expiry(void) {
  long long next = 0;
  for (int i = -3; i < made; i++) {
    struct timer *t = i < 0 ? &itimers[i + 3] : posix[i];
    if (!t || !t->left || !t->moves || t->notify == SIGEV_NONE)
      continue;
    if (!__mnemo_signal_matters(target(t), t->signo))
      continue;
    if (!next || t->left < next)
      next = t->left;
  }
  return next;
}

/* `dt` nanoseconds pass: every timer that moves advances, and then those
 * that expired send their signals (whose handlers may set timers), the
 * interval timer first, then the POSIX timers in the order they were
 * made. */
void __mnemo_time_advance(long long dt) {
  int count = made;
  advance(&itimers[ITIMER_REAL], dt);
  for (int i = 0; i < count; i++)
    if (posix[i])
      advance(posix[i], dt);
  if (itimers[ITIMER_REAL].due)
    expire(&itimers[ITIMER_REAL], itimers[ITIMER_REAL].due);
  for (int i = 0; i < count; i++)
    if (posix[i] && posix[i]->due)
      expire(posix[i], posix[i]->due);
}

/* Time passes to the next expiry that would change something; how far. */
long long __mnemo_time_passes(void) {
  long long dt = __mnemo_next_expiry();
  if (dt)
    __mnemo_time_advance(dt);
  return dt;
}

/* A POSIX timer's signal was taken (delivered, or by sigwait): its
 * overruns until then are the signal's (si_overrun) and
 * timer_getoverrun's, and the next expiry sends it again. */
int __mnemo_timer_taken(int id) {
  struct timer *t = posix_timer(id);
  if (!t)
    return 0;
  t->queued = 0;
  t->overrun_taken = t->overrun;
  return t->overrun;
}

static long long from_timeval(const struct timeval *tv) {
  return tv->tv_sec * NS + tv->tv_usec * 1000LL;
}

static struct timeval to_timeval(long long ns) {
  /* Rounded up, as Linux gives back a timer's time left. */
  long long us = (ns + 999) / 1000;
  return (struct timeval){us / 1000000, us % 1000000};
}

long __mnemo_setitimer(long which, const struct itimerval *new, struct itimerval *old) {
  if ((unsigned long)which > ITIMER_PROF)
    return -EINVAL;
  if (new && ((unsigned long)new->it_value.tv_usec >= 1000000 ||
              (unsigned long)new->it_interval.tv_usec >= 1000000 || new->it_value.tv_sec < 0 ||
              new->it_interval.tv_sec < 0))
    return -EINVAL;
  struct timer *t = &itimers[which];
  if (old)
    *old = (struct itimerval){to_timeval(t->interval), to_timeval(t->left)};
  if (new) {
    t->left = from_timeval(&new->it_value);
    t->interval = t->left ? from_timeval(&new->it_interval) : 0;
    /* Threads waiting for ever look again: one may now wait for it. */
    __mnemo_event();
  }
  return 0;
}

long __mnemo_getitimer(long which, struct itimerval *value) {
  if ((unsigned long)which > ITIMER_PROF)
    return -EINVAL;
  struct timer *t = &itimers[which];
  *value = (struct itimerval){to_timeval(t->interval), to_timeval(t->left)};
  return 0;
}

/* The kernel's sigevent, as musl's timer_create passes it. */
struct ksigevent {
  union sigval sigev_value;
  int sigev_signo;
  int sigev_notify;
  int sigev_tid;
};

/* timer_create. Linux numbers a timer before it checks the sigevent (and
 * the alarm clocks, which a process without CAP_WAKE_ALARM may not use),
 * so a failure there uses a number up; the clocks without timers fail
 * before. Without a sigevent the timer sends SIGALRM to the process with
 * a zero value, as glibc, which the replay runs against, asks. */
long __mnemo_timer_create(long clock, const struct ksigevent *ev, int *id) {
  int moves;
  switch (clock) {
  case CLOCK_REALTIME:
  case CLOCK_MONOTONIC:
  case CLOCK_BOOTTIME:
  case CLOCK_TAI: moves = 1; break;
  case CLOCK_PROCESS_CPUTIME_ID:
  case CLOCK_THREAD_CPUTIME_ID: moves = 0; break;
  case CLOCK_MONOTONIC_RAW:
  case CLOCK_REALTIME_COARSE:
  case CLOCK_MONOTONIC_COARSE: return -EOPNOTSUPP;
  case CLOCK_REALTIME_ALARM:
  case CLOCK_BOOTTIME_ALARM: made++; return -EOPNOTSUPP;
  default:
    /* clock_getcpuclockid's and pthread_getcpuclockid's: CPU time. */
    if (clock < 0) {
      moves = 0;
      break;
    }
    return -EINVAL;
  }
  struct timer t = {.moves = moves, .notify = SIGEV_SIGNAL, .signo = SIGALRM};
  if (ev) {
    t.notify = ev->sigev_notify;
    t.signo = ev->sigev_signo;
    t.tid = ev->sigev_tid;
    t.value = ev->sigev_value;
  }
  int bad = 0;
  switch (t.notify) {
  case SIGEV_NONE: break;
  case SIGEV_THREAD_ID:
    bad = !__mnemo_signal_matters(t.tid, 0);
    /* fall through */
  case SIGEV_SIGNAL: bad |= t.signo < 1 || t.signo >= _NSIG; break;
  default: bad = 1;
  }
  struct timer **grown = realloc(posix, (made + 1) * sizeof *posix);
  struct timer *made_one = malloc(sizeof *made_one);
  if (!grown || !made_one) {
    free(made_one);
    if (grown)
      posix = grown;
    return -EAGAIN;
  }
  posix = grown;
  posix[made] = 0;
  if (bad) {
    free(made_one);
    made++;
    return -EINVAL;
  }
  t.id = made;
  *made_one = t;
  posix[made] = made_one;
  *id = made++;
  return 0;
}

static int bad_timespec(const struct timespec *ts) {
  return ts->tv_sec < 0 || (unsigned long)ts->tv_nsec >= NS;
}

static struct itimerspec current(const struct timer *t) {
  return (struct itimerspec){{t->interval / NS, t->interval % NS}, {t->left / NS, t->left % NS}};
}

/* timer_settime: an absolute time on the clock (TIMER_ABSTIME) is from
 * the model's time, which every clock reads; one already past expires at
 * once. */
long __mnemo_timer_settime(long id, long flags, const struct itimerspec *new,
                           struct itimerspec *old) {
  struct timer *t = posix_timer(id);
  if (!t)
    return -EINVAL;
  if (bad_timespec(&new->it_value) || bad_timespec(&new->it_interval))
    return -EINVAL;
  if (old)
    *old = current(t);
  long long value = new->it_value.tv_sec * NS + new->it_value.tv_nsec;
  t->interval = value ? new->it_interval.tv_sec * NS + new->it_interval.tv_nsec : 0;
  if (value && (flags & TIMER_ABSTIME)) {
    value -= MNEMO_TIME * NS;
    if (value <= 0) {
      t->left = t->interval;
      expire(t, 1);
      return 0;
    }
  }
  t->left = value;
  __mnemo_event();
  return 0;
}

long __mnemo_timer_gettime(long id, struct itimerspec *cur) {
  struct timer *t = posix_timer(id);
  if (!t)
    return -EINVAL;
  *cur = current(t);
  return 0;
}

long __mnemo_timer_getoverrun(long id) {
  struct timer *t = posix_timer(id);
  return t ? t->overrun_taken : -EINVAL;
}

/* A deleted timer's pending signal stays pending, as Linux leaves it. */
long __mnemo_timer_delete(long id) {
  struct timer *t = posix_timer(id);
  if (!t)
    return -EINVAL;
  posix[id] = 0;
  free(t);
  return 0;
}

/* timer_delete as glibc, which the replay runs against, has it: -1 and
 * errno for a timer that is not one (musl's gives the negated error). A
 * SIGEV_THREAD timer, whose timer_t is musl's thread descriptor shifted
 * right (negative), is deleted by its thread: the sign bit of its
 * descriptor's timer id and a SIGTIMER tell it to. */
int timer_delete(timer_t t) {
  if ((intptr_t)t >= 0)
    return __syscall_ret(__syscall(SYS_timer_delete, t));
  pthread_t td = (pthread_t)((uintptr_t)t << 1);
  td->timer_id |= INT_MIN;
  __syscall(SYS_tkill, td->tid, SIGTIMER);
  return 0;
}
