/* POSIX timers (timer_create): time passes only where nothing else can
 * run, to the next expiry, and every timer advances as far. A timer
 * without a sigevent sends SIGALRM with SI_TIMER and its id; two timers
 * expire in the order of their times; a periodic one's value comes with
 * each signal, and the periods that pass while its signal is pending are
 * its overruns; an absolute time already past expires at once; a
 * SIGEV_THREAD timer runs its function in a thread. The input byte
 * decides whether a timer is deleted before it expires: then a timed
 * sigtimedwait gives EAGAIN.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int alarms, order[2], handled;
static siginfo_t last;
static sem_t notified;

static void on_alarm(int s, siginfo_t *info, void *context) {
  (void)s;
  (void)context;
  alarms++;
  last = *info;
}

static void on_usr(int s) { order[handled++ < 2 ? handled - 1 : 1] = s; }

static void notify(union sigval value) {
  ++*(int *)value.sival_ptr;
  sem_post(&notified);
}

static struct itimerspec after_ms(long ms, long every_ms) {
  struct itimerspec v = {{every_ms / 1000, every_ms % 1000 * 1000000},
                         {ms / 1000, ms % 1000 * 1000000}};
  return v;
}

int main(void) {
  char c;
  klee_make_symbolic(&c, 1, "c");
  timer_t t, u, w;
  printf("bad clock %d %d\n", timer_create(12, 0, &t), errno == EINVAL);
  printf("raw clock %d %d\n", timer_create(CLOCK_MONOTONIC_RAW, 0, &t), errno == EOPNOTSUPP);

  /* No sigevent: SIGALRM to the process, SI_TIMER, the timer's id. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_alarm;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGALRM, &sa, 0);
  timer_create(CLOCK_MONOTONIC, 0, &t);
  struct itimerspec v = after_ms(2, 0), cur;
  timer_settime(t, 0, &v, 0);
  timer_gettime(t, &cur);
  printf("armed %d\n", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec > 0 &&
                           cur.it_value.tv_nsec <= 2000000);
  while (!alarms)
    pause();
  printf("alarm %d code %d id %d\n", alarms, last.si_code == SI_TIMER,
         last.si_timerid == (int)(long)t);
  timer_gettime(t, &cur);
  printf("disarmed %d\n", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);

  /* Two timers: the earlier expires first, whichever was set first. */
  signal(SIGUSR1, on_usr);
  signal(SIGUSR2, on_usr);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGUSR1;
  timer_create(CLOCK_REALTIME, &ev, &u);
  ev.sigev_signo = SIGUSR2;
  timer_create(CLOCK_REALTIME, &ev, &w);
  v = after_ms(30, 0);
  timer_settime(u, 0, &v, 0);
  v = after_ms(5, 0);
  timer_settime(w, 0, &v, 0);
  while (handled < 2)
    pause();
  printf("order %d %d\n", order[0] == SIGUSR2, order[1] == SIGUSR1);

  /* Periodic, its signal waited for: the value comes with it; while it
   * stays pending, the periods that pass are overruns. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGUSR2);
  sigprocmask(SIG_BLOCK, &set, 0);
  ev.sigev_signo = SIGUSR1;
  ev.sigev_value.sival_int = 42;
  timer_delete(u);
  timer_create(CLOCK_MONOTONIC, &ev, &u);
  v = after_ms(2, 2);
  timer_settime(u, 0, &v, 0);
  siginfo_t info;
  int values = 0;
  for (int i = 0; i < 3; i++)
    values += sigwaitinfo(&set, &info) == SIGUSR1 && info.si_value.sival_int == 42;
  printf("periodic %d\n", values);
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  v = after_ms(40, 0);
  timer_settime(w, 0, &v, 0);
  sigwaitinfo(&usr2, &info);
  sigwaitinfo(&set, &info);
  int overrun = timer_getoverrun(u);
  printf("overruns %d %d\n", info.si_overrun == overrun, overrun >= 10 && overrun <= 25);
  timer_delete(u);

  /* An absolute time already past: at once. */
  v = after_ms(0, 0);
  v.it_value.tv_sec = 1;
  timer_settime(w, TIMER_ABSTIME, &v, 0);
  printf("past %d\n", sigwaitinfo(&usr2, &info) == SIGUSR2);

  /* SIGEV_THREAD: the function runs in a thread. */
  int count = 0;
  sem_init(&notified, 0, 0);
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD;
  ev.sigev_notify_function = notify;
  ev.sigev_value.sival_ptr = &count;
  timer_t th;
  printf("thread timer %d\n", timer_create(CLOCK_MONOTONIC, &ev, &th));
  v = after_ms(3, 0);
  timer_settime(th, 0, &v, 0);
  sem_wait(&notified);
  printf("notified %d\n", count);
  timer_delete(th);

  /* Deleted before it expires, or not. */
  v = after_ms(1, 0);
  timer_settime(w, 0, &v, 0);
  if (c == 'd')
    timer_delete(w);
  struct timespec limit = {0, 200000000};
  int got = sigtimedwait(&usr2, &info, &limit);
  printf("%s %d\n", c == 'd' ? "deleted" : "kept", got == SIGUSR2 ? 1 : errno == EAGAIN ? 0 : -1);
  printf("delete again %d %d\n", timer_delete(w) == -1 && errno == EINVAL, c == 'd');
  return 0;
}
