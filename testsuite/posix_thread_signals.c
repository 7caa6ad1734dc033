/* Signals and threads as the kernel has them: each thread its own mask
 * (a new thread inherits its creator's), a signal sent to one thread
 * handled in that thread, one sent to the process handled by a thread
 * that does not block it, and one a thread raises while blocking it
 * pending for that thread alone (and gone with it). A signal sent to a
 * thread waiting for a mutex runs its handler there before the lock is
 * taken. The input
 * byte decides whether the second signal goes to the thread or to the
 * process; either way the thread, the only one not blocking it while it
 * waits in sigsuspend, runs the handler.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static pthread_t worker;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t ready;
static volatile int in_worker, elsewhere, during_lock;

static void on_signal(int s) {
  (void)s;
  if (pthread_equal(pthread_self(), worker))
    in_worker++;
  else
    elsewhere++;
}

static void *work(void *arg) {
  (void)arg;
  sigset_t mine, pending, none;
  /* The mask came from main: both signals blocked. */
  pthread_sigmask(SIG_BLOCK, 0, &mine);
  printf("inherited %d %d\n", sigismember(&mine, SIGUSR1), sigismember(&mine, SIGUSR2));
  sigemptyset(&none);
  while (in_worker < 2)
    sigsuspend(&none);
  /* Raised while blocked: pending here, not for main. */
  raise(SIGUSR1);
  sigpending(&pending);
  printf("own pending %d\n", sigismember(&pending, SIGUSR1));
  /* Unblocked now: the signal main sends once this is about to wait for
   * the lock is handled before the lock is taken. */
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  int before = in_worker;
  pthread_sigmask(SIG_UNBLOCK, &usr2, 0);
  sem_post(&ready);
  pthread_mutex_lock(&lock);
  during_lock = in_worker - before;
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  char c;
  klee_make_symbolic(&c, 1, "c");
  worker = pthread_self();
  signal(SIGUSR1, on_signal);
  signal(SIGUSR2, on_signal);
  sigset_t both, mine, pending;
  sigemptyset(&both);
  sigaddset(&both, SIGUSR1);
  sigaddset(&both, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &both, 0);
  sem_init(&ready, 0, 0);
  pthread_mutex_lock(&lock);
  pthread_create(&worker, 0, work, 0);
  pthread_kill(worker, SIGUSR2);
  if (c == 'p')
    kill(getpid(), SIGUSR1);
  else
    pthread_kill(worker, SIGUSR1);
  sem_wait(&ready);
  pthread_kill(worker, SIGUSR2);
  pthread_mutex_unlock(&lock);
  pthread_join(worker, 0);
  pthread_sigmask(SIG_BLOCK, 0, &mine);
  sigpending(&pending);
  printf("main still blocks %d, pending %d\n", sigismember(&mine, SIGUSR1),
         sigismember(&pending, SIGUSR1));
  printf("handled in worker %d, elsewhere %d, while locking %d\n", in_worker, elsewhere,
         during_lock);
  printf("%s\n", c == 'p' ? "to the process" : "to the thread");
  return 0;
}
