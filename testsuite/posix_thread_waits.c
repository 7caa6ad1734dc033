/* A thread that waits for ever waits until another thread ends the wait:
 * main reads a pipe that a second thread writes a byte at a time (each
 * read waits for the next write, the close ends it at end of file), then
 * waits in sigsuspend for the SIGUSR1 the second thread sends it with
 * pthread_kill, which it blocked beforehand so that the signal cannot
 * come before the wait, natively either. The three input bytes go
 * through the pipe; whether they start with "ab" decides the last line.
 * expect-completed: 3
 * expect-tests: 3
 */
#include <klee/klee.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

static int fds[2];
static pthread_t main_thread;
static sem_t drained;
static volatile int got;

static void on_usr1(int s) {
  (void)s;
  got++;
}

static void *writer(void *arg) {
  const char *msg = arg;
  for (int i = 0; i < 3; i++) {
    write(fds[1], msg + i, 1);
    sched_yield();
  }
  close(fds[1]);
  sem_wait(&drained);
  pthread_kill(main_thread, SIGUSR1);
  return 0;
}

int main(void) {
  char in[3];
  klee_make_symbolic(in, sizeof in, "in");
  signal(SIGUSR1, on_usr1);
  sigset_t usr1, none;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigemptyset(&none);
  sigprocmask(SIG_BLOCK, &usr1, 0);
  main_thread = pthread_self();
  sem_init(&drained, 0, 0);
  pipe(fds);
  pthread_t t;
  pthread_create(&t, 0, writer, in);
  char buf[8];
  int n = 0;
  ssize_t r;
  while ((r = read(fds[0], buf + n, sizeof buf - n)) > 0)
    n += r;
  printf("read %d bytes, last %zd\n", n, r);
  sem_post(&drained);
  int s = sigsuspend(&none);
  printf("sigsuspend %d %d got %d\n", s, errno == EINTR, got);
  pthread_join(t, 0);
  if (memcmp(buf, "ab", 2) == 0)
    puts("ab");
  else
    puts("other");
  return 0;
}
