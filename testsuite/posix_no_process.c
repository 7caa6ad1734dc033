/* The model makes no process, and a native replay makes none either,
 * whoever runs it (root included): fork fails with EAGAIN, as do
 * posix_spawn and popen's, system(NULL) says no shell exists and a
 * command's status is a shell's exit 127, as glibc gives them when a
 * process cannot be made, while a thread is made and joined. What the
 * program's one symbolic byte holds decides whether it forks first or
 * makes its thread first.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <errno.h>
#include <klee/klee.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void *bump(void *arg) {
  *(int *)arg += 1;
  return arg;
}

static int thread(void) {
  int n = 41;
  pthread_t t;
  if (pthread_create(&t, 0, bump, &n) != 0 || pthread_join(t, 0) != 0)
    return -1;
  return n;
}

static void processes(void) {
  pid_t pid = fork();
  if (pid == 0)
    _exit(9);
  printf("fork %d %s\n", (int)pid, pid < 0 && errno == EAGAIN ? "EAGAIN" : "?");
  char *argv[] = {"true", 0};
  int e = posix_spawn(&pid, "/bin/true", 0, 0, argv, environ);
  printf("posix_spawn %s\n", e == EAGAIN ? "EAGAIN" : "?");
  FILE *p = popen("echo hi", "r");
  printf("popen %s\n", p ? "made" : "null");
  if (p)
    pclose(p);
  int status = system("exit 3");
  printf("system %d %d\n", system(NULL), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(void) {
  unsigned char first;
  klee_make_symbolic(&first, sizeof first, "first");
  if (first & 1) {
    processes();
    printf("thread %d\n", thread());
  } else {
    printf("thread %d\n", thread());
    processes();
  }
  return 0;
}
