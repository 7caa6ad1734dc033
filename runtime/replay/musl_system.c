/*
 * system() in a project's program (`mnemo cc-project`, linked with musl),
 * answering as glibc and the model (runtime/musl/src/mnemo_spawn.c) do
 * where no shell process can be made, as in a replay, whose programs make
 * no process: the status of a shell that exited with 127, as POSIX has
 * it, where musl's gives -1; and system(NULL) says no shell exists, where
 * musl's says one does without asking. ed's `!` reports an error on -1,
 * so every `!` command the engine saw succeed failed natively.
 *
 * Where a shell can be made (the program run outside a replay) it runs
 * the command as both libraries do: SIGINT and SIGQUIT ignored and
 * SIGCHLD blocked in the caller while the shell runs.
 *
 * In libmnemo-model.a alone: a program the replay compiles itself is
 * linked with glibc, which answers so already.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

int system(const char *cmd) {
  pthread_testcancel();
  if (!cmd)
    return system("exit 0") == 0;

  struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int, old_quit;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  sigset_t chld, old_mask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &old_mask);

  /* The shell gets back what the caller had: its mask, and the default
   * action for the signals the caller did not ignore itself. */
  sigset_t reset;
  sigemptyset(&reset);
  if (old_int.sa_handler != SIG_IGN)
    sigaddset(&reset, SIGINT);
  if (old_quit.sa_handler != SIG_IGN)
    sigaddset(&reset, SIGQUIT);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &old_mask);
  posix_spawnattr_setsigdefault(&attr, &reset);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  int status = 127 << 8;
  pid_t pid;
  char *argv[] = {"sh", "-c", "--", (char *)cmd, 0};
  int err = posix_spawn(&pid, "/bin/sh", 0, &attr, argv, environ);
  posix_spawnattr_destroy(&attr);
  if (!err) {
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
      ;
    if (w != pid)
      status = -1;
  }

  sigaction(SIGINT, &old_int, 0);
  sigaction(SIGQUIT, &old_quit, 0);
  sigprocmask(SIG_SETMASK, &old_mask, 0);
  if (err)
    errno = err;
  return status;
}
