/* sigsetjmp keeps the signal mask where asked, and a jump back to it
 * restores the mask: a handler left by siglongjmp (or longjmp, which both
 * C libraries let restore a kept mask) unblocks its signal, so the next
 * raise runs the handler again, and a signal that came while the handler
 * blocked it is delivered as the mask comes back, before sigsetjmp
 * returns again; the mask restored is the one kept, whatever it blocked.
 * sigsetjmp told not to keep the mask, and setjmp on a buffer sigsetjmp
 * kept a mask in before, leave the handler's mask as it is. The input
 * byte picks the jump a handler leaves by.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf env;
static volatile int runs, late, use_longjmp;
static char order[16];
static volatile int told;

static void tell(char c) {
  if (told < (int)sizeof order - 1)
    order[told++] = c;
}

static void on_usr1(int sig) {
  (void)sig;
  runs++;
  tell('1');
  if (use_longjmp)
    longjmp(env, 1);
  siglongjmp(env, 1);
}

static void on_usr1_again(int sig) {
  (void)sig;
  tell('1');
  /* SIGUSR2 is blocked while this handler runs (its sa_mask). */
  raise(SIGUSR2);
  tell('r');
  siglongjmp(env, 2);
}

static void on_usr2(int sig) {
  (void)sig;
  late++;
  tell('2');
}

static int blocked(int sig) {
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  return sigismember(&now, sig);
}

int main(void) {
  unsigned char how;
  klee_make_symbolic(&how, sizeof how, "how");
  use_longjmp = how == 'l';
  signal(SIGUSR1, on_usr1);

  /* The mask kept: three raises, three runs, nothing left blocked. */
  for (int i = 0; i < 3; i++)
    if (sigsetjmp(env, 1) == 0)
      raise(SIGUSR1);
  if (runs != 3 || blocked(SIGUSR1)) {
    printf("kept: runs %d, blocked %d\n", runs, blocked(SIGUSR1));
    return 1;
  }

  /* Not kept: the handler's mask stays, and the next raise waits. */
  if (sigsetjmp(env, 0) == 0)
    raise(SIGUSR1);
  if (runs != 4 || !blocked(SIGUSR1)) {
    printf("not kept: runs %d, blocked %d\n", runs, blocked(SIGUSR1));
    return 2;
  }
  raise(SIGUSR1);
  if (runs != 4)
    return 3;
  /* Unblocked, the pending one runs at once, and its jump restores the
   * mask kept while it was still blocked. */
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  if (sigsetjmp(env, 1) == 0)
    sigprocmask(SIG_UNBLOCK, &usr1, NULL);
  if (runs != 5 || !blocked(SIGUSR1)) {
    printf("pending: runs %d, blocked %d\n", runs, blocked(SIGUSR1));
    return 4;
  }
  sigprocmask(SIG_UNBLOCK, &usr1, NULL);

  /* setjmp on a buffer that kept a mask before does not restore it. */
  if (sigsetjmp(env, 1) == 0)
    raise(SIGUSR1);
  if (setjmp(env) == 0)
    raise(SIGUSR1);
  if (runs != 7 || !blocked(SIGUSR1))
    return 5;
  sigprocmask(SIG_UNBLOCK, &usr1, NULL);

  /* A signal blocked in the handler is delivered as the jump restores
   * the mask, before sigsetjmp returns again. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr2;
  sigaction(SIGUSR2, &sa, NULL);
  sa.sa_handler = on_usr1_again;
  sigaddset(&sa.sa_mask, SIGUSR2);
  sigaction(SIGUSR1, &sa, NULL);
  told = 0;
  int back = sigsetjmp(env, 1);
  if (back == 0)
    raise(SIGUSR1);
  tell('b');
  order[told] = 0;
  printf("%s %s, late %d\n", use_longjmp ? "longjmp" : "siglongjmp", order, late);
  return back == 2 && late == 1 && strcmp(order, "1r2b") == 0 ? 0 : 6;
}
