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

extern struct pthread __mnemo_self;

int __pthread_setcancelstate(int new, int *old) {
  if (new > 2U)
    return EINVAL;
  if (old)
    *old = __mnemo_self.canceldisable;
  __mnemo_self.canceldisable = new;
  return 0;
}
weak_alias(__pthread_setcancelstate, pthread_setcancelstate);

/* No thread can cancel this one (pthread_cancel is not linked), so a
 * cancellation point does nothing: system() begins with one. */
void __pthread_testcancel(void) {}
weak_alias(__pthread_testcancel, pthread_testcancel);

/* pthread_cleanup_push and _pop (macros of musl's pthread.h, which
 * getspnam_r and the resolver use too): with no cancellation, a handler
 * runs only when its pop asks for it. */
void _pthread_cleanup_push(struct __ptcb *cb, void (*f)(void *), void *x) {
  cb->__f = f;
  cb->__x = x;
}

void _pthread_cleanup_pop(struct __ptcb *cb, int run) {
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
