/* What the runtime keeps of each thread beyond musl's descriptor: its
 * signals, as the kernel keeps them per thread. A thread made by
 * pthread_create (mnemo_thread.c) carries them after its descriptor; the
 * main thread's are mnemo_process.c's, so that a program that makes no
 * thread links none of the thread machinery to reach them. */
#ifndef MNEMO_THREAD_H
#define MNEMO_THREAD_H

#include "pthread_impl.h"

#include <signal.h>

/* How a pending signal was sent, for its siginfo: si_code, and for a
 * timer's (SI_TIMER) the timer and its value. */
struct mnemo_sent {
  int code, timer;
  union sigval value;
};

/* A thread's mask of blocked signals, the signals sent to it alone
 * (pthread_kill, raise, a write's SIGPIPE) while it blocked them or while
 * another ran, how each was sent, how many handlers have run in it (pause
 * and sigsuspend wait for one more) and whether the last one's action
 * restarts the call it interrupted (SA_RESTART); its alternate signal
 * stack (`alt_set` 0: none, as a new thread starts). */
struct mnemo_signals {
  unsigned long blocked, pending;
  int handled, restarts;
  struct mnemo_sent sent[_NSIG];
  stack_t alt;
  int alt_set;
};

/* A thread made by pthread_create: its descriptor, its signals, what it
 * is to run, and its thread-specific data (the main thread's is musl's
 * static one). */
struct mnemo_thread {
  struct pthread td;
  struct mnemo_signals signals;
  void *(*func)(void *);
  void *arg;
  int c11;
  void *tsd[PTHREAD_KEYS_MAX];
};

extern struct pthread __mnemo_self;
extern struct mnemo_signals __mnemo_main_signals;

static inline struct mnemo_signals *mnemo_signals_of(struct pthread *t) {
  if (t == &__mnemo_self)
    return &__mnemo_main_signals;
  return &((struct mnemo_thread *)t)->signals;
}

/* Delivers the signals pending for the running thread that it does not
 * block: where a thread goes on after others ran, which may have sent it
 * some (mnemo_process.c). */
void __mnemo_deliver_pending(void);

#endif
