/* What a program sets of its signals is kept, as the
 * kernel keeps it: sigaction gives back the action set before (system()
 * saves SIGINT's and SIGQUIT's so, and a tool asks whether it inherited
 * SIG_IGN), sigprocmask the mask (SIGKILL never blocked). No process
 * can be made (a fork fails with EAGAIN, natively too): system(NULL)
 * says no shell exists and system("exit 3") gives a shell's exit 127,
 * as glibc's, and pthread_cleanup_pop(1) runs its handler once.
 * Each answer that is not the kernel's exits with its own status.
 * expect-completed: 1
 * expect-tests: 1
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static int cleaned;
static void on_int(int sig) { (void)sig; }
static void clean(void *p) { *(int *)p += 1; }

int main(void) {
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = on_int;
  sigaddset(&act.sa_mask, SIGUSR2);
  if (sigaction(SIGINT, &act, &old) != 0 || old.sa_handler != SIG_DFL)
    return 1;
  if (sigaction(SIGINT, 0, &old) != 0 || old.sa_handler != on_int ||
      !sigismember(&old.sa_mask, SIGUSR2))
    return 2;
  if (signal(SIGQUIT, SIG_IGN) != SIG_DFL || signal(SIGQUIT, SIG_DFL) != SIG_IGN)
    return 3;
  if (sigaction(SIGKILL, &act, 0) == 0)
    return 4;

  sigset_t set, was;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGKILL);
  if (sigprocmask(SIG_BLOCK, &set, &was) != 0 || sigismember(&was, SIGUSR1))
    return 5;
  if (sigprocmask(SIG_SETMASK, &was, &set) != 0 || !sigismember(&set, SIGUSR1) ||
      sigismember(&set, SIGKILL))
    return 6;
  if (sigprocmask(SIG_BLOCK, 0, &set) != 0 || sigismember(&set, SIGUSR1))
    return 7;

  if (system(NULL) != 0)
    return 8;
  if (system("exit 3") != 127 << 8)
    return 10;
  pthread_cleanup_push(clean, &cleaned);
  pthread_cleanup_pop(1);
  pthread_cleanup_push(clean, &cleaned);
  pthread_cleanup_pop(0);
  return cleaned == 1 ? 0 : 9;
}
