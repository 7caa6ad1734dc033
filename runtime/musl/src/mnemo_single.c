/* What programs ask of threads and of the allocator beyond malloc, with
 * the engine's heap (musl's src/malloc is not linked) and threads that
 * nothing cancels (musl's cancellation is not linked; see the runtime's
 * Makefile, and mnemo_thread.c for making and joining threads). */
#include "pthread_impl.h"
#include "syscall.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

extern long (*__mnemo_cancel)(void);

int __pthread_setcancelstate(int new, int *old) {
  if (new > 2U)
    return EINVAL;
  struct pthread *self = __pthread_self();
  if (old)
    *old = self->canceldisable;
  self->canceldisable = new;
  return 0;
}
weak_alias(__pthread_setcancelstate, pthread_setcancelstate);

/* A cancellation point that makes no system call (system() begins with
 * one): a request pending is acted on (mnemo_sched.c). */
void __pthread_testcancel(void) {
  struct pthread *self = __pthread_self();
  if (self->cancel && !self->canceldisable && __mnemo_cancel)
    __mnemo_cancel();
}
weak_alias(__pthread_testcancel, pthread_testcancel);

/* pthread_cleanup_push and _pop (macros of musl's pthread.h, which
 * getspnam_r and the resolver use too): the handlers the thread's exit
 * or cancellation runs, newest first, unless popped before. */
void _pthread_cleanup_push(struct __ptcb *cb, void (*f)(void *), void *x) {
  struct pthread *self = __pthread_self();
  cb->__f = f;
  cb->__x = x;
  cb->__next = self->cancelbuf;
  self->cancelbuf = cb;
}

void _pthread_cleanup_pop(struct __ptcb *cb, int run) {
  __pthread_self()->cancelbuf = cb->__next;
  if (run)
    cb->__f(cb->__x);
}

/* The list of threads is walked only by the running thread, which no
 * other interrupts: nothing to lock. */
void __tl_lock(void) {}
void __tl_unlock(void) {}
void __tl_sync(pthread_t td) { (void)td; }

/* musl's sigprocmask calls this, which asks the kernel (the engine). */
int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
  if ((unsigned)how - SIG_BLOCK > 2U)
    return EINVAL;
  return -__syscall(SYS_rt_sigprocmask, how, set, old, _NSIG / 8);
}

void *reallocarray(void *p, size_t n, size_t m) {
  if (n && m > SIZE_MAX / n) {
    errno = ENOMEM;
    return 0;
  }
  return realloc(p, n * m);
}

int posix_memalign(void **res, size_t align, size_t size) {
  if (align < sizeof(void *) || (align & (align - 1)))
    return EINVAL;
  void *p = aligned_alloc(align, size);
  if (!p)
    return ENOMEM;
  *res = p;
  return 0;
}
