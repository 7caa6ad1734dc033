/* Threads, as the engine runs them (src/exec/threads.rs): one at a time,
 * each until it waits on a futex, yields, sleeps or exits. The engine
 * keeps each thread's frames; this file keeps what musl keeps of a thread
 * (its descriptor, the list of threads) and makes the system calls that
 * start and end one (mnemo_sched.c has those that stop and wake one, and
 * the thread pointer). musl's own mutexes, condition variables, barriers
 * and semaphores work unchanged over the futex calls. A thread's stack is
 * the engine's (each frame's objects), so a stack size or address in the
 * attributes changes nothing. */
#include "mnemo_thread.h"
#include "syscall.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

long __mnemo_kernel(long n, long a, long b, long c, long d, long e, long f);

extern struct pthread *__mnemo_tp;
extern void *__pthread_tsd_main[];
extern long (*__mnemo_cancel)(void);

static void start(void *p) {
  struct mnemo_thread *t = p;
  __mnemo_tp = &t->td;
  __mnemo_deliver_pending();
  if (t->c11)
    __pthread_exit((void *)(intptr_t)((int (*)(void *))t->func)(t->arg));
  __pthread_exit(t->func(t->arg));
}

int __pthread_create(pthread_t *restrict res, const pthread_attr_t *restrict attrp,
                     void *(*entry)(void *), void *restrict arg) {
  struct pthread *self = __pthread_self();
  struct mnemo_thread *t = calloc(1, sizeof *t);
  if (!t)
    return EAGAIN;
  if (!self->tsd)
    self->tsd = __pthread_tsd_main;
  struct pthread *new = &t->td;
  int c11 = attrp == __ATTRP_C11_THREAD;
  new->self = new;
  new->dtv = __mnemo_self.dtv;
  new->tsd = t->tsd;
  new->locale = &libc.global_locale;
  new->detach_state = !c11 && attrp && attrp->_a_detach ? DT_DETACHED : DT_JOINABLE;
  new->robust_list.head = &new->robust_list.head;
  new->canary = self->canary;
  if (!c11 && attrp) {
    new->stack_size = attrp->_a_stacksize;
    new->guard_size = attrp->_a_guardsize;
  }
  /* As the kernel's clone: the creator's mask, nothing pending. */
  t->signals.blocked = mnemo_signals_of(self)->blocked;
  t->func = entry;
  t->arg = arg;
  t->c11 = c11;
  long tid = __mnemo_kernel(SYS_clone, (long)start, (long)t, 0, 0, 0, 0);
  if (tid < 0) {
    free(t);
    return -tid;
  }
  new->tid = tid;
  new->next = self->next;
  new->prev = self;
  new->next->prev = new;
  new->prev->next = new;
  libc.threads_minus_1++;
  *res = new;
  return 0;
}
weak_alias(__pthread_create, pthread_create);

/* As musl's: the cleanup handlers and key destructors run; the last
 * thread's exit is the process's (exit(0)); a joinable thread's result
 * waits for its joiner, a detached thread's descriptor is freed. */
_Noreturn void __pthread_exit(void *result) {
  pthread_t self = __pthread_self();
  self->canceldisable = 1;
  self->cancelasync = 0;
  self->result = result;
  while (self->cancelbuf) {
    void (*f)(void *) = self->cancelbuf->__f;
    void *x = self->cancelbuf->__x;
    self->cancelbuf = self->cancelbuf->__next;
    f(x);
  }
  __pthread_tsd_run_dtors();
  if (self->next == self)
    exit(0);
  int state = a_cas(&self->detach_state, DT_JOINABLE, DT_EXITING);
  libc.threads_minus_1--;
  self->next->prev = self->prev;
  self->prev->next = self->next;
  self->prev = self->next = self;
  self->tid = 0;
  if (state == DT_DETACHED) {
    if (self != &__mnemo_self)
      free(self);
  } else {
    a_store(&self->detach_state, DT_EXITED);
    __wake(&self->detach_state, 1, 1);
  }
  for (;;)
    __mnemo_kernel(SYS_exit, 0, 0, 0, 0, 0, 0);
}
weak_alias(__pthread_exit, pthread_exit);

/* Joining waits for the thread's exit (its state's futex); a detached
 * thread or the caller itself is refused as glibc refuses them, since
 * the tests are replayed against glibc. */
static int join(pthread_t t, void **res, const struct timespec *at, int try) {
  if (t == __pthread_self())
    return EDEADLK;
  int state;
  while ((state = t->detach_state)) {
    if (state >= DT_DETACHED)
      return EINVAL;
    if (try)
      return EBUSY;
    int r = __timedwait_cp(&t->detach_state, state, CLOCK_REALTIME, at, 1);
    if (r == ETIMEDOUT || r == EINVAL)
      return r;
  }
  if (res)
    *res = t->result;
  if (t != &__mnemo_self)
    free(t);
  return 0;
}

int __pthread_join(pthread_t t, void **res) { return join(t, res, 0, 0); }
weak_alias(__pthread_join, pthread_join);

int __pthread_tryjoin_np(pthread_t t, void **res) { return join(t, res, 0, 1); }
weak_alias(__pthread_tryjoin_np, pthread_tryjoin_np);

int __pthread_timedjoin_np(pthread_t t, void **res, const struct timespec *at) {
  return join(t, res, at, 0);
}
weak_alias(__pthread_timedjoin_np, pthread_timedjoin_np);

/* Acts on the running thread's cancellation request at a cancellation
 * point: it exits (PTHREAD_CANCELED), or, where musl's own code masked
 * cancellation (a condition's wait, to take its mutex back first), the
 * point fails with ECANCELED and cancellation is disabled. */
static long cancel(void) {
  pthread_t self = __pthread_self();
  if (self->canceldisable == PTHREAD_CANCEL_ENABLE || self->cancelasync)
    __pthread_exit(PTHREAD_CANCELED);
  self->canceldisable = PTHREAD_CANCEL_DISABLE;
  return -ECANCELED;
}

/* The request is made, and a wait the thread is in ends with EINTR,
 * which its cancellation point takes for the request; a thread whose
 * cancellation is asynchronous acts on it as soon as it goes on, wherever
 * it stopped (mnemo_sched.c). */
int pthread_cancel(pthread_t t) {
  __mnemo_cancel = cancel;
  a_store(&t->cancel, 1);
  if (t == __pthread_self()) {
    if (t->canceldisable == PTHREAD_CANCEL_ENABLE && t->cancelasync)
      __pthread_exit(PTHREAD_CANCELED);
    return 0;
  }
  if (t->tid)
    __mnemo_kernel(SYS_tkill, t->tid, SIGCANCEL, 0, 0, 0, 0);
  return 0;
}
