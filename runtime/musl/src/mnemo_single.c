/* What programs ask of threads and of the allocator beyond malloc, in a
 * run that has one thread and the engine's heap (musl's src/malloc, and
 * its thread functions that make, join, cancel or signal threads, lock
 * mutexes or wait on conditions, are not linked; see the runtime's
 * Makefile). Mutexes are never contended, so taking one
 * always succeeds at once; a new thread cannot be made (EAGAIN, which
 * callers such as sort's treat as "work alone"); waiting on a condition
 * would wait for ever, which no caller with one thread does. */
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
void pthread_testcancel(void) {}

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

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a) {
  (void)a;
  *m = (pthread_mutex_t){0};
  return 0;
}
int pthread_mutex_destroy(pthread_mutex_t *m) { (void)m; return 0; }
int pthread_mutex_lock(pthread_mutex_t *m) { (void)m; return 0; }
int pthread_mutex_trylock(pthread_mutex_t *m) { (void)m; return 0; }
int __pthread_mutex_timedlock(pthread_mutex_t *restrict m, const struct timespec *restrict at) {
  (void)m, (void)at;
  return 0;
}
weak_alias(__pthread_mutex_timedlock, pthread_mutex_timedlock);
int pthread_mutex_unlock(pthread_mutex_t *m) { (void)m; return 0; }

int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a) {
  (void)a;
  *c = (pthread_cond_t){0};
  return 0;
}
int pthread_cond_destroy(pthread_cond_t *c) { (void)c; return 0; }
int pthread_cond_signal(pthread_cond_t *c) { (void)c; return 0; }
int pthread_cond_broadcast(pthread_cond_t *c) { (void)c; return 0; }
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
  (void)c, (void)m;
  return EDEADLK;
}

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg) {
  (void)t, (void)a, (void)f, (void)arg;
  return EAGAIN;
}
int pthread_join(pthread_t t, void **res) {
  (void)t, (void)res;
  return ESRCH;
}

/* The names musl's C11 threads and its other thread functions call. */
weak_alias(pthread_create, __pthread_create);
weak_alias(pthread_join, __pthread_join);
weak_alias(pthread_mutex_lock, __pthread_mutex_lock);
weak_alias(pthread_mutex_trylock, __pthread_mutex_trylock);
weak_alias(pthread_mutex_unlock, __pthread_mutex_unlock);

/* Time does not pass, and no other thread signals: a timed wait times
 * out at once. */
int __pthread_cond_timedwait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m,
                             const struct timespec *restrict ts) {
  (void)c, (void)m, (void)ts;
  return ETIMEDOUT;
}
weak_alias(__pthread_cond_timedwait, pthread_cond_timedwait);

int __private_cond_signal(pthread_cond_t *c, int n) {
  (void)c, (void)n;
  return 0;
}

/* The list of threads has one entry: nothing to lock. */
void __tl_lock(void) {}
void __tl_unlock(void) {}
void __tl_sync(pthread_t td) { (void)td; }

/* The last thread's exit is the process's: its keys' destructors run, and
 * then exit(0), as POSIX has it. */
_Noreturn void __pthread_exit(void *result) {
  (void)result;
  __pthread_tsd_run_dtors();
  exit(0);
}
weak_alias(__pthread_exit, pthread_exit);

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
