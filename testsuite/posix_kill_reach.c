/* A signal reaches no process but the program's own, natively as in the
 * model, whoever runs the replay: kill(-1) (every process the user may
 * signal) returns 0 and reaches no one, the program's group (kill(0))
 * is the program alone, and init and the parent may not be signalled.
 * Natively, run as root and in the replay's group, the first would have
 * reached every process of the machine and the second the replay. The
 * input byte decides whether the group or every process is sent the
 * signal first.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <errno.h>
#include <klee/klee.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile int handled;

static void on_signal(int s) {
  (void)s;
  handled++;
}

/* kill(pid, sig)'s result and errno, as one number. */
static int sent(pid_t pid, int sig) {
  errno = 0;
  return kill(pid, sig) == 0 ? 0 : errno;
}

int main(void) {
  char first;
  klee_make_symbolic(&first, 1, "first");
  signal(SIGWINCH, on_signal);
  int everyone, group;
  if (first == 'g') {
    group = sent(0, SIGWINCH);
    everyone = sent(-1, SIGWINCH);
  } else {
    everyone = sent(-1, SIGWINCH);
    group = sent(0, SIGWINCH);
  }
  int init = sent(1, 0), parent = sent(getppid(), 0);
  printf("everyone %d, group %d, init %d, parent %d, handled %d\n", everyone, group, init,
         parent, handled);
  return everyone == 0 && group == 0 && init == EPERM && parent == EPERM && handled == 1 ? 0 : 1;
}
