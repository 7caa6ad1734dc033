/* A signal the process sends itself is delivered as the kernel delivers
 * it: raise() runs the handler before it returns, a handler installed
 * with SA_SIGINFO learns the signal and how it was sent (SI_TKILL from
 * raise, SI_USER from kill), a blocked signal waits, pending, until
 * sigprocmask or sigsuspend lets it through (sigsuspend then fails with
 * EINTR), SA_RESETHAND leaves the default action after one delivery, a
 * signal raised inside its own handler waits until the handler returns
 * (another one does not), and a handler may siglongjmp out. SIGPIPE
 * starts ignored, as the replay starts the program, and a write to a pipe
 * without a reader sends it to a handler installed. The input's
 * byte is 'k' or not: with 'k' the program raises SIGTERM with its
 * default action, which ends the process: that path ends early
 * (signalled), the other exits.
 * expect-completed: 1
 * expect-early: signalled 1
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int log_len;
static char trail[64];
static sigjmp_buf back;

static void note(char c) {
  if (log_len < (int)sizeof trail - 1)
    trail[log_len++] = c;
}

static void on_usr1(int sig) {
  note(sig == SIGUSR1 ? '1' : '?');
}

static void on_usr2(int sig, siginfo_t *info, void *context) {
  (void)context;
  note(sig == SIGUSR2 && info->si_signo == SIGUSR2 ? '2' : '?');
  note(info->si_code == SI_TKILL ? 't' : info->si_code == SI_USER ? 'u' : '?');
}

static void on_hup(int sig) {
  (void)sig;
  note('h');
  /* SIGHUP is blocked while its handler runs: this one waits until the
   * handler returns (then runs it again, four times in all); SIGUSR1 is
   * not, and runs now. */
  if (log_len < 20)
    raise(SIGHUP);
  raise(SIGUSR1);
  note('H');
}

static void on_alrm(int sig) {
  (void)sig;
  note('a');
  siglongjmp(back, 1);
}

static void on_pipe(int sig) {
  note(sig == SIGPIPE ? 'P' : '?');
}

static int install(int sig, void (*handler)(int), int flags) {
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  act.sa_flags = flags;
  return sigaction(sig, &act, NULL);
}

int main(void) {
  char c;
  klee_make_symbolic(&c, sizeof c, "c");
  struct sigaction info_act;
  memset(&info_act, 0, sizeof info_act);
  info_act.sa_sigaction = on_usr2;
  info_act.sa_flags = SA_SIGINFO;
  if (install(SIGUSR1, on_usr1, 0) || sigaction(SIGUSR2, &info_act, NULL) ||
      install(SIGHUP, on_hup, 0) || install(SIGALRM, on_alrm, SA_RESETHAND))
    return 1;
  raise(SIGUSR1);
  raise(SIGUSR2);
  kill(getpid(), SIGUSR2);
  note('|');

  sigset_t usr1, was, waiting;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigprocmask(SIG_BLOCK, &usr1, &was);
  raise(SIGUSR1);
  raise(SIGUSR1); /* a standard signal is pending once */
  sigpending(&waiting);
  note(sigismember(&waiting, SIGUSR1) ? 'p' : '?');
  sigprocmask(SIG_SETMASK, &was, NULL);
  note('|');

  sigprocmask(SIG_BLOCK, &usr1, NULL);
  raise(SIGUSR1);
  int r = sigsuspend(&was);
  note(r == -1 ? 'e' : '?');
  sigprocmask(SIG_SETMASK, &was, NULL);
  note('|');

  raise(SIGHUP);
  note('|');

  if (sigsetjmp(back, 1) == 0)
    raise(SIGALRM);
  struct sigaction now;
  sigaction(SIGALRM, NULL, &now);
  note(now.sa_handler == SIG_DFL ? 'd' : '?');
  note('|');

  /* The program starts with SIGPIPE ignored, as the replay starts it; a
   * write to a pipe with no reader sends it, then fails. */
  sigaction(SIGPIPE, NULL, &now);
  note(now.sa_handler == SIG_IGN ? 'i' : '?');
  int ends[2];
  if (pipe(ends) != 0 || close(ends[0]) != 0)
    return 2;
  note(write(ends[1], "x", 1) == -1 ? 'w' : '?');
  install(SIGPIPE, on_pipe, 0);
  note(write(ends[1], "x", 1) == -1 ? 'w' : '?');
  printf("%s\n", trail);

  if (c == 'k') {
    raise(SIGTERM);
    puts("not reached");
  }
  return 0;
}
