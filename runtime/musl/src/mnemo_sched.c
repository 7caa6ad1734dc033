/* The system calls a thread may stop at (futex waits, yields, sleeps),
 * the cancellation points, and the thread pointer, which every use of
 * errno reads: apart from mnemo_thread.c, so that a program that makes
 * no thread links none of pthread_create's machinery. */
#include "mnemo_fs.h"
#include "mnemo_thread.h"
#include "syscall.h"

#include <errno.h>

long __mnemo_kernel(long n, long a, long b, long c, long d, long e, long f);


/* What __get_tp gives (pthread_arch.h): the running thread's descriptor.
 * A thread sets it when it starts and again whenever the engine lets it
 * go on after another ran. */
struct pthread *__mnemo_tp = &__mnemo_self;

/* What acts on a cancellation request (mnemo_thread.c), set by the first
 * pthread_cancel: until then no thread has a request to act on. */
long (*__mnemo_cancel)(void);

/* A thread goes on after others ran: it is the running thread again,
 * takes the signals they sent it meanwhile and, if its cancellation is
 * asynchronous, acts on a request they made (wherever it stopped, as a
 * kernel's signal would reach it there). */
static void goes_on(struct pthread *self) {
  __mnemo_tp = self;
  __mnemo_deliver_pending();
  if (self->cancelasync)
    pthread_testcancel();
}

/* A system call the engine may let another thread run in before it
 * returns. */
static long stop_point(long n, long a, long b, long c, long d, long e) {
  struct pthread *self = __mnemo_tp;
  long r = __mnemo_kernel(n, a, b, c, d, e, 0);
  goes_on(self);
  return r;
}

/* Where a thread the engine preempted (many branches taken without a
 * stop point) goes on: the engine calls it before the branch the thread
 * was stopped at, with the descriptor that was the thread pointer then. */
void __mnemo_resume(struct pthread *self) { goes_on(self); }

/* A futex wait without a limit, through which time passes: the engine
 * ends a wait with a limit (ETIMEDOUT) only where no thread can run, so
 * where a timer would expire the wait has one, and on timing out lets
 * time pass to that expiry (the timers' signals come) and waits on,
 * unless a handler ran meanwhile: EINTR, or 0 where its action restarts
 * calls (as a spurious wake: callers look again). A wait with a limit
 * lets no time pass: its limit is on the model's clock, which stands
 * still, and so natively passes at once. */
static long wait_for_ever(volatile int *addr, long op, long val, long addr2) {
  struct mnemo_signals *s = mnemo_signals_of(__mnemo_tp);
  int before = s->handled;
  for (;;) {
    struct timespec now = {0, 0};
    long timed = __mnemo_next_expiry() ? (long)&now : 0;
    long r = stop_point(SYS_futex, (long)addr, op, val, timed, addr2);
    if (r != -ETIMEDOUT)
      return r;
    __mnemo_time_passes();
    if (s->handled != before)
      return s->restarts ? 0 : -EINTR;
    if (*addr != (int)val)
      return 0;
  }
}

long __mnemo_futex(volatile int *addr, long op, long val, long timeout, long addr2, long val3) {
  switch (op & 127) {
  case FUTEX_WAIT:
  case 9 /* FUTEX_WAIT_BITSET */:
    /* The kernel compares and sleeps at once; nothing runs in between
     * here either. */
    if (*addr != (int)val)
      return -EAGAIN;
    if (!timeout)
      return wait_for_ever(addr, op, val, addr2);
    break;
  case 4 /* FUTEX_CMP_REQUEUE */:
    if (*addr != (int)val3)
      return -EAGAIN;
    break;
  }
  return stop_point(SYS_futex, (long)addr, op, val, timeout, addr2);
}

long __mnemo_yield(void) { return stop_point(SYS_sched_yield, 0, 0, 0, 0, 0); }

/* A system call that is a cancellation point (musl's __syscall_cp, whose
 * own version interrupts the call with a signal): a request made before
 * it, or one that ended its wait (EINTR), is acted on, unless the thread
 * disabled cancellation (or masked it, for close). */
long(__syscall_cp)(syscall_arg_t nr, syscall_arg_t u, syscall_arg_t v, syscall_arg_t w,
                   syscall_arg_t x, syscall_arg_t y, syscall_arg_t z) {
  struct pthread *self = __pthread_self();
  int st = self->canceldisable;
  if (!__mnemo_cancel || (st && (st == PTHREAD_CANCEL_DISABLE || nr == SYS_close)))
    return __syscall(nr, u, v, w, x, y, z);
  if (self->cancel)
    return __mnemo_cancel();
  long r = __syscall(nr, u, v, w, x, y, z);
  if (r == -EINTR && nr != SYS_close && self->cancel &&
      self->canceldisable != PTHREAD_CANCEL_DISABLE)
    r = __mnemo_cancel();
  return r;
}
