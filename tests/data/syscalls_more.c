/* The system calls GNU coreutils makes beyond files' contents, as the
 * model answers them: advice and syncing succeed on an open descriptor
 * (but fsync of /dev/null or of a standard descriptor is EINVAL);
 * what is not the program's own (/dev/null, the directory's parent)
 * does not change, as for a user who is not root, while the mode, times
 * and size of the symbolic file (nobody's, as is the working directory)
 * change (its contents grow as they are
 * written past the end); the machine is fixed (one processor,
 * uname, no other process, no children, time does not pass); every open
 * descriptor is ready for poll at once; an inotify instance takes watches
 * of names that exist, and no event comes; a pipe carries its bytes from
 * one end to the other, and copy_file_range and sendfile from a file to
 * another; the environment is empty but
 * there; and what a
 * program asks of threads and aligned allocation. Run by
 * tests/syscall_model.rs with `--sym-files 1 4`; every assertion must
 * hold in the engine (a native run on a real file system differs). */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static void *work(void *arg) { return arg; }

int main(void) {
  /* A's status may make it an empty directory: a path of its own. */
  struct stat a;
  if (stat("A", &a) == 0 && S_ISDIR(a.st_mode)) {
    assert(open("A", O_RDWR) == -1 && errno == EISDIR);
    return 0;
  }
  int fd = open("A", O_RDWR);
  assert(fd >= 0);
  assert(posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL) == 0);
  assert(fsync(fd) == 0 && fdatasync(fd) == 0);
  int null = open("/dev/null", O_WRONLY);
  assert(fsync(null) == -1 && errno == EINVAL);
  assert(fdatasync(1) == -1 && errno == EINVAL);
  assert(syncfs(null) == 0 && close(null) == 0);
  int dot = open(".", O_RDONLY | O_DIRECTORY);
  assert(fsync(dot) == 0 && close(dot) == 0);
  assert(posix_fadvise(99, 0, 0, POSIX_FADV_SEQUENTIAL) == EBADF);
  assert(faccessat(AT_FDCWD, "A", F_OK, AT_EACCESS) == 0);
  assert(fchmodat(AT_FDCWD, "A", 0400, 0) == 0);
  assert(faccessat(AT_FDCWD, "A", R_OK, AT_EACCESS) == 0);
  assert(faccessat(AT_FDCWD, "A", W_OK, AT_EACCESS) == -1 && errno == EACCES);
  assert(fchmodat(AT_FDCWD, "A", 0644, 0) == 0);

  assert(unlink("/dev/null") == -1 && errno == EACCES);
  assert(unlink("none") == -1 && errno == ENOENT);
  assert(mkdir("..", 0755) == -1 && errno == EEXIST);
  assert(mkdir("../d", 0755) == -1 && errno == EACCES);
  assert(mkdir("A", 0755) == -1 && errno == EEXIST);
  assert(chmod("..", 0) == -1 && errno == EPERM);
  assert(chmod("none", 0) == -1 && errno == ENOENT);
  /* An unprivileged user, nobody, who may not give A to root. */
  assert(getuid() == 65534 && geteuid() == 65534);
  assert(getgid() == 65534 && getegid() == 65534);
  assert(chown("A", 0, 0) == -1 && errno == EPERM);
  assert(chown(".", -1, -1) == 0 && lchown("/dev/null", -1, -1) == 0);
  assert(fchown(1, -1, -1) == 0 && chown("none", -1, -1) == -1 && errno == ENOENT);
  assert(utimensat(AT_FDCWD, "/dev/null", 0, 0) == 0);
  struct timespec then[2] = {{5, 0}, {5, 0}};
  assert(utimensat(AT_FDCWD, "/dev/null", then, 0) == -1 && errno == EPERM);
  assert(utimensat(AT_FDCWD, "..", 0, 0) == -1 && errno == EACCES);

  /* A is the program's own: its mode, times and size change. */
  struct stat st;
  assert(chmod("A", 0600) == 0 && fchmod(fd, 04751) == 0);
  assert(stat("A", &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 04751);
  assert(st.st_uid == getuid() && st.st_gid == getgid());
  assert(chown("A", -1, -1) == 0 && fchown(fd, -1, -1) == 0);
  /* A chown takes the set-user-id bit away, even one naming no one. */
  assert(stat("A", &st) == 0 && (st.st_mode & 07777) == 0751);
  assert(fchmod(fd, 06751) == 0 && chown("A", getuid(), getgid()) == 0);
  assert(stat("A", &st) == 0 && (st.st_mode & 07777) == 0751);
  assert(chown("A", getuid(), 0) == -1 && errno == EPERM);
  assert(chown("/dev/null", 0, -1) == -1 && errno == EPERM);
  assert(stat(".", &st) == 0 && st.st_uid == getuid() && st.st_gid == getgid());
  assert(stat("..", &st) == 0 && st.st_uid == 0);
  struct timespec when[2] = {{1000, 5}, {0, UTIME_OMIT}};
  assert(utimensat(AT_FDCWD, "A", when, 0) == 0);
  assert(stat("A", &st) == 0 && st.st_atim.tv_sec == 1000 && st.st_atim.tv_nsec == 5);
  assert(st.st_mtim.tv_sec != 1000);
  when[1].tv_nsec = 1000000000;
  assert(futimens(fd, when) == -1 && errno == EINVAL);
  assert(futimens(fd, 0) == 0 && fstat(fd, &st) == 0 && st.st_atim.tv_sec != 1000);
  assert(utimensat(AT_FDCWD, ".", then, 0) == 0);
  assert(truncate("A", 2) == 0 && stat("A", &st) == 0 && st.st_size == 2);
  assert(truncate(".", 2) == -1 && errno == EISDIR);
  assert(truncate("/dev/null", 2) == -1 && errno == EINVAL);
  assert(truncate("A", -1) == -1 && errno == EINVAL);
  assert(truncate("A", 17592186040321L) == -1 && errno == EFBIG);
  int here = open(".", O_RDONLY | O_DIRECTORY);
  assert(lseek(here, 0, SEEK_END) == 0x7fffffffffffffffL);
  assert(lseek(here, 1, SEEK_END) == -1 && errno == EINVAL && close(here) == 0);
  assert(ftruncate(fd, 6000) == 0 && fstat(fd, &st) == 0 && st.st_size == 6000);
  assert(st.st_blocks == 8);
  char back[8];
  assert(pread(fd, back, 8, 4) == 8 && back[0] == 0 && back[7] == 0);
  assert(pwrite(fd, "xy", 2, 7000) == 2 && fstat(fd, &st) == 0 && st.st_size == 7002);
  assert(st.st_blocks == 16);
  assert(pread(fd, back, 8, 6998) == 4 && back[0] == 0 && back[2] == 'x' && back[3] == 'y');
  assert(ftruncate(0, 0) == -1 && errno == EINVAL);
  int ro = open("A", O_RDONLY);
  assert(ftruncate(ro, 0) == -1 && errno == EINVAL && close(ro) == 0);
  assert(ftruncate(fd, 0) == 0 && fstat(fd, &st) == 0 && st.st_size == 0 && st.st_blocks == 0);
  assert(lseek(fd, 0, SEEK_SET) == 0 && write(fd, "abc", 3) == 3);
  assert(pread(fd, back, 8, 0) == 3 && back[0] == 'a' && back[2] == 'c');
  null = open("/dev/null", O_WRONLY | O_TRUNC);
  assert(write(null, "abc", 3) == 3 && fstat(null, &st) == 0 && st.st_size == 0);
  assert(ftruncate(null, 5) == -1 && errno == EINVAL && close(null) == 0);
  assert(rename("/dev/null", "B") == -1 && errno == EXDEV);
  assert(link("A", "../B") == -1 && errno == EACCES);
  assert(fallocate(fd, 0, 0, 9000) == 0 && fstat(fd, &st) == 0 && st.st_size == 9000);
  assert(chdir("/") == 0 && chdir("A") == -1 && errno == ENOENT);
  assert(mkdir("/A", 0700) == -1 && errno == EACCES);
  assert(chdir("tmp/mnemo-replay/cwd") == 0);
  assert(chdir("A") == -1 && errno == ENOTDIR);

  struct utsname u;
  assert(uname(&u) == 0 && strcmp(u.sysname, "Linux") == 0);
  cpu_set_t cpus;
  assert(sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) == 1);
  struct rlimit r;
  /* The model's descriptors, and no other limit. */
  assert(getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur == 64 && r.rlim_max == 64);
  assert(getrlimit(RLIMIT_STACK, &r) == 0 && r.rlim_cur == RLIM_INFINITY);
  struct statfs sf;
  assert(statfs("A", &sf) == 0 && sf.f_bsize == 4096);
  assert(statfs("none", &sf) == -1 && errno == ENOENT);
  assert(getgroups(0, 0) == 0);
  struct timespec nap = {5, 0};
  assert(nanosleep(&nap, 0) == 0);
  /* Setting the clock needs privileges (`date -s`). */
  struct timespec now;
  assert(clock_gettime(CLOCK_REALTIME, &now) == 0);
  assert(clock_settime(CLOCK_REALTIME, &now) == -1 && errno == EPERM);
  assert(kill(getpid(), 0) == 0);
  assert(kill(1234, SIGTERM) == -1 && errno == ESRCH);
  /* Every process but the caller: as Linux's, it succeeds. */
  assert(kill(-1, SIGTERM) == 0);
  assert(kill(0, 0) == 0);
  assert(fork() == -1 && errno == EAGAIN);
  char *argv[] = {"ls", 0};
  assert(execv("/bin/ls", argv) == -1 && errno == ENOENT);

  errno = 0;
  assert(reallocarray(0, SIZE_MAX / 2, 4) == 0 && errno == ENOMEM);
  int *many = reallocarray(0, 4, sizeof *many);
  assert(many);
  void *page;
  assert(posix_memalign(&page, 4096, 100) == 0 && (uintptr_t)page % 4096 == 0);
  free(page);
  pthread_mutex_t m;
  assert(pthread_mutex_init(&m, 0) == 0 && pthread_mutex_lock(&m) == 0);
  assert(pthread_mutex_unlock(&m) == 0 && pthread_mutex_destroy(&m) == 0);
  pthread_t t;
  void *given;
  assert(pthread_create(&t, 0, work, &page) == 0 && pthread_join(t, &given) == 0);
  assert(given == &page);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  assert(pthread_sigmask(SIG_BLOCK, &set, 0) == 0);
  assert(sigprocmask(SIG_UNBLOCK, &set, 0) == 0);
  int old;
  assert(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old) == 0);
  assert(old == PTHREAD_CANCEL_ENABLE);
  struct pollfd p[4] = {{.fd = 1, .events = POLLOUT | POLLRDBAND},
                        {.fd = fd, .events = POLLIN | POLLPRI},
                        {.fd = 40, .events = POLLIN},
                        {.fd = -1, .events = POLLIN}};
  assert(poll(p, 4, -1) == 3);
  assert(p[0].revents == POLLOUT && p[1].revents == POLLIN);
  assert(p[2].revents == POLLNVAL && p[3].revents == 0);
  p[0].events = POLLRDBAND;
  assert(poll(p, 1, 0) == 0 && p[0].revents == 0);
  int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  assert(in >= 0);
  assert(inotify_add_watch(in, "A", IN_MODIFY) == 1);
  assert(inotify_add_watch(in, ".", IN_CREATE | IN_MOVED_TO) == 2);
  assert(inotify_add_watch(in, "none", IN_MODIFY) == -1 && errno == ENOENT);
  assert(inotify_add_watch(fd, "A", IN_MODIFY) == -1 && errno == EINVAL);
  char event[64];
  assert(read(in, event, sizeof event) == -1 && errno == EAGAIN);
  assert(inotify_rm_watch(in, 1) == 0);
  assert(inotify_rm_watch(in, 3) == -1 && errno == EINVAL);

  /* A pipe's read end reads what its write end wrote; empty, it would
   * wait while a write end is open, and is at its end once none is. */
  int ends[2];
  char piped[8];
  assert(pipe(ends) == 0 && write(ends[1], "hi", 2) == 2);
  assert(lseek(ends[0], 0, SEEK_SET) == -1 && errno == ESPIPE);
  assert(read(ends[0], piped, sizeof piped) == 2 && piped[0] == 'h' && piped[1] == 'i');
  assert(fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0);
  assert(read(ends[0], piped, sizeof piped) == -1 && errno == EAGAIN);
  int second = dup(ends[1]);
  assert(close(ends[1]) == 0 && write(second, "x", 1) == 1 && close(second) == 0);
  assert(read(ends[0], piped, sizeof piped) == 1 && read(ends[0], piped, 1) == 0);
  assert(pipe2(ends, O_CLOEXEC) == 0 && fcntl(ends[1], F_GETFD) == FD_CLOEXEC);
  assert(close(ends[0]) == 0 && write(ends[1], "x", 1) == -1 && errno == EPIPE);
  assert(pipe2(ends, O_TRUNC) == -1 && errno == EINVAL);

  /* copy_file_range and sendfile copy bytes between files, as cp does. */
  int copy = open("copy", O_RDWR | O_CREAT | O_EXCL, 0600);
  loff_t at = 1;
  assert(copy >= 0 && copy_file_range(fd, &at, copy, 0, 2, 0) == 2 && at == 3);
  assert(fstat(copy, &st) == 0 && st.st_uid == getuid() && st.st_gid == getgid());
  assert(pread(copy, piped, sizeof piped, 0) == 2 && piped[0] == 'b' && piped[1] == 'c');
  assert(copy_file_range(fd, 0, copy, 0, 1, 1) == -1 && errno == EINVAL);
  off_t from = 0;
  assert(sendfile(copy, fd, &from, 3) == 3 && from == 3);
  assert(pread(copy, piped, sizeof piped, 0) == 5 && piped[2] == 'a' && piped[4] == 'c');
  assert(lseek(in, 0, SEEK_SET) == -1 && errno == ESPIPE);
  assert(close(in) == 0);
  extern char **environ;
  assert(environ && !environ[0] && !getenv("HOME"));
  return 0;
}
