/* Each thread its own alternate signal stack, as the kernel keeps it: a
 * new thread does not start on its creator's (it starts with none; the
 * replay's AddressSanitizer gives each thread one of its own), and one it
 * sets is not its creator's. sigaltstack checks the mode before the size,
 * takes SS_ONSTACK as a mode for 0, and gives back SS_AUTODISARM with the
 * stack. A handler's context names the stack as it was when the signal
 * came; with SS_AUTODISARM the stack is disarmed while a handler runs and
 * armed again after. The input byte decides whether the main thread's
 * stack disarms itself.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <errno.h>
#include <klee/klee.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

/* Linux's flag, which glibc's headers do not name. */
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)
#endif

static char main_stack[1 << 16], thread_stack[1 << 16];
static volatile int context_ok, disabled_inside;

static void on_signal(int sig, siginfo_t *info, void *uc) {
  (void)sig;
  (void)info;
  stack_t now;
  const stack_t *given = &((ucontext_t *)uc)->uc_stack;
  context_ok = given->ss_sp == main_stack && given->ss_size == sizeof main_stack;
  sigaltstack(0, &now);
  disabled_inside = (now.ss_flags & SS_DISABLE) != 0;
}

static void *work(void *arg) {
  (void)arg;
  stack_t ss, had, old;
  sigaltstack(0, &had);
  if (had.ss_sp == main_stack)
    return (void *)3;
  ss.ss_sp = thread_stack;
  ss.ss_size = sizeof thread_stack;
  ss.ss_flags = 0;
  if (sigaltstack(&ss, 0) != 0)
    return (void *)1;
  sigaltstack(0, &old);
  /* Given back as it was: natively, the sanitizer frees the stack a
   * thread ends with, taking it for its own. */
  sigaltstack(&had, 0);
  return (void *)(long)(old.ss_sp == thread_stack ? 0 : 2);
}

int main(void) {
  char autodisarm;
  klee_make_symbolic(&autodisarm, 1, "autodisarm");
  stack_t ss, old;
  ss.ss_sp = main_stack;
  ss.ss_size = 1024;
  ss.ss_flags = 0;
  if (sigaltstack(&ss, 0) != -1 || errno != ENOMEM)
    return 2;
  ss.ss_flags = 4;
  if (sigaltstack(&ss, 0) != -1 || errno != EINVAL)
    return 3;
  ss.ss_size = sizeof main_stack;
  ss.ss_flags = SS_ONSTACK;
  if (sigaltstack(&ss, 0) != 0)
    return 4;
  sigaltstack(0, &old);
  printf("legacy mode: flags %x\n", old.ss_flags);
  ss.ss_flags = autodisarm ? SS_AUTODISARM : 0;
  if (sigaltstack(&ss, 0) != 0)
    return 5;
  sigaltstack(0, &old);
  printf("flags %x\n", old.ss_flags);

  pthread_t t;
  void *result;
  pthread_create(&t, 0, work, 0);
  pthread_join(t, &result);
  if (result)
    return 6;
  sigaltstack(0, &old);
  if (old.ss_sp != main_stack)
    return 7;

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGUSR1, &sa, 0);
  raise(SIGUSR1);
  sigaltstack(0, &old);
  printf("context %d, disabled inside %d, armed after %d\n", context_ok, disabled_inside,
         old.ss_sp == main_stack && !(old.ss_flags & SS_DISABLE));
  if (!context_ok || disabled_inside != (autodisarm != 0))
    return 8;
  return 0;
}
