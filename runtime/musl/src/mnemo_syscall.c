/* mnemo's system calls: every call of musl comes here (see
 * musl/arch/syscall_arch.h). Calls on descriptors and memory are answered
 * over the model of files in program memory (mnemo_fs.h); the rest goes to
 * the engine, which writes the path's output, ends it at exit, and ends it
 * with "unsupported system call N (name)" for a call nobody models. */
#include "mnemo_fs.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>

struct mnemo_desc __mnemo_std[3] = {
    {.refs = 1, .kind = MNEMO_EMPTY_IN, .flags = O_RDONLY},
    {.refs = 1, .kind = MNEMO_OUTPUT, .flags = O_WRONLY, .stream = 1},
    {.refs = 1, .kind = MNEMO_OUTPUT, .flags = O_WRONLY, .stream = 2},
};

struct mnemo_fs __mnemo_fs = {
    .fds = {{.desc = &__mnemo_std[0]}, {.desc = &__mnemo_std[1]}, {.desc = &__mnemo_std[2]}},
    .umask = 022,
};

/* Any open descriptor, one opened with O_PATH included: what closing,
 * duplicating, fcntl, fchdir and fstat take. */
static struct mnemo_desc *any_desc_of(long fd) {
  if (fd < 0 || fd >= MNEMO_FDS)
    return 0;
  return __mnemo_fs.fds[fd].desc;
}

/* A descriptor that reads, writes or changes its file: as in Linux, one
 * opened with O_PATH (musl's O_SEARCH) does none of these (EBADF), and
 * musl's fchmod then falls back on /proc, which the model has not. */
static struct mnemo_desc *desc_of(long fd) {
  struct mnemo_desc *d = any_desc_of(fd);
  return d && !(d->flags & O_PATH) ? d : 0;
}


static long do_read(struct mnemo_desc *d, char *buf, unsigned long n,
                    unsigned long off) {
  if (d->kind == MNEMO_EMPTY_IN)
    return 0;
  if (d->kind == MNEMO_DIR)
    return -EISDIR;
  if (d->kind != MNEMO_FILE)
    return -EBADF;
  return __mnemo_read_at(d->file, buf, n, off);
}

static long sys_read(long fd, char *buf, unsigned long n) {
  struct mnemo_desc *d = desc_of(fd);
  if (!d || !__mnemo_readable(d))
    return -EBADF;
  /* No inotify event ever comes: a read waits for ever (`tail -f`),
   * which the engine ends as a path waiting for a signal. An empty pipe
   * is at its end once no write end is open; before, a read waits for
   * another thread to write or close. */
  while (d->kind == MNEMO_INOTIFY ||
         (d->kind == MNEMO_PIPE && d->off >= d->file->size && d->file->writers)) {
    long r = (d->flags & O_NONBLOCK) ? -EAGAIN : __mnemo_wait(1);
    if (r)
      return r;
  }
  long r = d->kind == MNEMO_PIPE ? __mnemo_read_at(d->file, buf, n, d->off)
                                 : do_read(d, buf, n, d->off);
  if (r > 0)
    d->off += r;
  return r;
}

/* A symbolic file without a name is stdin (or a symbolic stdout): unless
 * its status says regular file, it is a pipe or a terminal, as a replay
 * gives it, and cannot seek. */
static int is_stream(const struct mnemo_desc *d) {
  return d->kind == MNEMO_FILE && !d->file->path && !S_ISREG(d->file->st->st_mode);
}

static long sys_pread(long fd, char *buf, unsigned long n, long off) {
  struct mnemo_desc *d = desc_of(fd);
  if (!d || !__mnemo_readable(d))
    return -EBADF;
  if (d->kind != MNEMO_FILE || is_stream(d))
    return d->kind == MNEMO_DIR ? -EISDIR : -ESPIPE;
  if (off < 0)
    return -EINVAL;
  return do_read(d, buf, n, off);
}

/* A symbolic file grows as it is written past its end; /dev/null drops
 * every byte. */
static long broken_pipe(void) {
  long r = __mnemo_signal_self(SIGPIPE, SI_USER);
  return r ? r : -EPIPE;
}

static long sys_write(long fd, const char *buf, unsigned long n) {
  struct mnemo_desc *d = desc_of(fd);
  if (!d || !__mnemo_writable(d))
    return -EBADF;
  /* With no read end (stdout's closes after the bytes a path may
   * write), a write sends SIGPIPE, which the program starts ignoring,
   * and fails. */
  if (d->kind == MNEMO_OUTPUT) {
    long r = __mnemo_kernel(SYS_write, d->stream, (long)buf, n, 0, 0, 0);
    return r == -EPIPE ? broken_pipe() : r;
  }
  if (d->kind == MNEMO_PIPE) {
    if (!d->file->readers)
      return broken_pipe();
    long r = __mnemo_write_at(d->file, buf, n, d->file->size);
    __mnemo_event();
    return r;
  }
  if (d->kind != MNEMO_FILE)
    return -EBADF;
  if (d->flags & O_APPEND)
    d->off = d->file->size;
  __mnemo_write_at(d->file, buf, n, d->off);
  d->off += n;
  return n;
}

static long sys_pwrite(long fd, const char *buf, unsigned long n, long off) {
  struct mnemo_desc *d = desc_of(fd);
  if (!d || !__mnemo_writable(d))
    return -EBADF;
  if (d->kind != MNEMO_FILE)
    return d->kind == MNEMO_OUTPUT ? -ESPIPE : -EBADF;
  if (off < 0)
    return -EINVAL;
  return __mnemo_write_at(d->file, buf, n, off);
}

static long sys_iov(long fd, const struct iovec *iov, long count, int out) {
  long total = 0;
  if (count < 0 || count > 1024)
    return -EINVAL;
  for (long i = 0; i < count; i++) {
    long r = out ? sys_write(fd, iov[i].iov_base, iov[i].iov_len)
                 : sys_read(fd, iov[i].iov_base, iov[i].iov_len);
    if (r < 0)
      return total ? total : r;
    total += r;
    if ((unsigned long)r < iov[i].iov_len)
      break;
  }
  return total;
}

static long sys_lseek(long fd, long off, long whence) {
  struct mnemo_desc *d = desc_of(fd);
  long base;
  if (!d)
    return -EBADF;
  if (d->kind == MNEMO_OUTPUT || d->kind == MNEMO_EMPTY_IN || d->kind == MNEMO_INOTIFY ||
      d->kind == MNEMO_PIPE || is_stream(d))
    return -ESPIPE;
  switch (whence) {
  case SEEK_SET: base = 0; break;
  case SEEK_CUR: base = d->off; break;
  /* A directory's end is ext4's: the largest offset a hash can have. */
  case SEEK_END: base = d->kind == MNEMO_FILE ? (long)d->file->size : LONG_MAX; break;
  default: return -EINVAL;
  }
  if ((off > 0 && base > LONG_MAX - off) || base + off < 0)
    return -EINVAL;
  d->off = base + off;
  return d->off;
}

static void release(struct mnemo_desc *d) {
  if (--d->refs)
    return;
  if (d->kind == MNEMO_PIPE) {
    if ((d->flags & 3) == O_RDONLY)
      d->file->readers--;
    else if (!--d->file->writers)
      __mnemo_event();
  }
  if (d->heap)
    free(d);
}

static long sys_close(long fd) {
  struct mnemo_desc *d = any_desc_of(fd);
  if (!d)
    return -EBADF;
  __mnemo_fs.fds[fd].desc = 0;
  release(d);
  return 0;
}

long __mnemo_dup_from(struct mnemo_desc *d, long min, int cloexec) {
  for (long fd = min < 0 ? 0 : min; fd < MNEMO_FDS; fd++) {
    if (!__mnemo_fs.fds[fd].desc) {
      __mnemo_fs.fds[fd].desc = d;
      __mnemo_fs.fds[fd].cloexec = cloexec;
      d->refs++;
      return fd;
    }
  }
  return -EMFILE;
}

static long sys_dup2(long old, long new, int cloexec) {
  struct mnemo_desc *d = any_desc_of(old);
  if (!d || new < 0 || new >= MNEMO_FDS)
    return -EBADF;
  if (old == new)
    return new;
  if (__mnemo_fs.fds[new].desc)
    sys_close(new);
  return __mnemo_dup_from(d, new, cloexec);
}

static long sys_fcntl(long fd, long cmd, long arg) {
  struct mnemo_desc *d = any_desc_of(fd);
  if (!d)
    return -EBADF;
  switch (cmd) {
  case F_DUPFD: return __mnemo_dup_from(d, arg, 0);
  case F_DUPFD_CLOEXEC: return __mnemo_dup_from(d, arg, 1);
  case F_GETFD: return __mnemo_fs.fds[fd].cloexec ? FD_CLOEXEC : 0;
  case F_SETFD: __mnemo_fs.fds[fd].cloexec = (arg & FD_CLOEXEC) != 0; return 0;
  case F_GETFL: return d->flags;
  case F_SETFL:
    d->flags = (d->flags & ~(O_APPEND | O_NONBLOCK)) | (arg & (O_APPEND | O_NONBLOCK));
    return 0;
  default: return -EINVAL;
  }
}

/* The kernel's struct termios (TCGETS fills 36 bytes, not libc's). */
struct kernel_termios {
  unsigned iflag, oflag, cflag, lflag;
  unsigned char line, cc[19];
};

/* The terminal's settings and window size: what a program sets it keeps,
 * as the pseudo-terminal of the native replay does, so that `stty -echo`
 * reads back what it set and succeeds. Like Linux's pseudo-terminals, it
 * has eight data bits and no parity whatever is asked (so `stty parenb`
 * fails, natively as here). */
static struct kernel_termios tty_mode = {
  /* A fresh Linux pseudo-terminal in raw mode with reads returning at
   * once (VMIN and VTIME 0), as the replay opens it: CS8 | CREAD | B38400,
   * ONLCR alone, and the default control characters. */
  .iflag = 0,
  .oflag = 04,
  .cflag = 0277,
  .lflag = 05060,
  .cc = {3, 034, 0177, 025, 4, 0, 0, 0, 021, 023, 032, 0, 022, 017, 027, 026},
};
/* Rows, columns and pixels: 0, as a new pseudo-terminal has them. */
static unsigned short tty_size[4];

/* A standard descriptor is a terminal when its symbolic file's status
 * says it is a character device (on a symbolic status, both ways are
 * explored); /dev/null, a character device too, is none. */
static long sys_ioctl(long fd, long request, long arg) {
  struct mnemo_desc *d = desc_of(fd);
  if (!d)
    return -EBADF;
  if (request == FIONREAD) {
    unsigned long left = 0;
    if ((d->kind == MNEMO_FILE || d->kind == MNEMO_PIPE) && d->off < d->file->size)
      left = d->file->size - d->off;
    *(int *)arg = left;
    return 0;
  }
  if (!d->file || d->file->path || !S_ISCHR(d->file->st->st_mode))
    return -ENOTTY;
  switch (request) {
  case TCGETS:
    memcpy((void *)arg, &tty_mode, sizeof tty_mode);
    return 0;
  case TCSETS:
  case TCSETSW:
  case TCSETSF:
    memcpy(&tty_mode, (void *)arg, sizeof tty_mode);
    tty_mode.cflag = (tty_mode.cflag & ~(CSIZE | PARENB)) | CS8 | CREAD;
    return 0;
  case TIOCGWINSZ:
    memcpy((void *)arg, tty_size, sizeof tty_size);
    return 0;
  case TIOCSWINSZ:
    memcpy(tty_size, (void *)arg, sizeof tty_size);
    return 0;
  default: return -EINVAL;
  }
}

/* Operations on a descriptor that touch no data the model keeps
 * (advice, syncing) succeed on an open one. */
static long on_open(long fd) { return desc_of(fd) ? 0 : -EBADF; }

/* The file a descriptor has open, or a pipe's (the standard descriptors
 * without a symbolic file): the harness's, which the program may not
 * change (EPERM). */
static struct stat pipe_st = {.st_mode = S_IFIFO | 0600};
static struct mnemo_file pipe_file = {.path = "pipe", .st = &pipe_st};
static long file_of(long fd, struct mnemo_file **f) {
  struct mnemo_desc *d = desc_of(fd);
  if (!d)
    return -EBADF;
  *f = d->file ? d->file : &pipe_file;
  return 0;
}

/* ftruncate needs a regular file open for writing (EINVAL). */
static long sys_ftruncate(long fd, long size) {
  struct mnemo_desc *d = desc_of(fd);
  if (!d)
    return -EBADF;
  if (d->kind != MNEMO_FILE || !__mnemo_writable(d) || !d->file || !d->file->own)
    return -EINVAL;
  return __mnemo_resize(d->file, size);
}

/* fallocate of the default mode grows a regular file of the program's
 * own to cover the range; the other modes are not the model's. */
static long sys_fallocate(long fd, long mode, long off, long len) {
  struct mnemo_desc *d = desc_of(fd);
  if (!d)
    return -EBADF;
  if (off < 0 || len <= 0)
    return -EINVAL;
  if (!__mnemo_writable(d))
    return -EBADF;
  if (d->kind != MNEMO_FILE || !S_ISREG(d->file->st->st_mode))
    return S_ISDIR(d->file ? d->file->st->st_mode : 0) ? -EISDIR : -ENODEV;
  if (mode)
    return -EOPNOTSUPP;
  if (!d->file->own)
    return -EROFS;
  if ((unsigned long)off + len <= d->file->size)
    return 0;
  return __mnemo_resize(d->file, off + len);
}

/* The kernel syncs files and directories; a character device or a pipe
 * has nothing to sync (EINVAL): /dev/null, and the standard descriptors,
 * which are pipes, /dev/null or a terminal natively. */
static long sys_fsync(long fd) {
  struct mnemo_desc *d = desc_of(fd);
  if (!d)
    return -EBADF;
  if (d->kind == MNEMO_DIR || (d->kind == MNEMO_FILE && !S_ISCHR(d->file->st->st_mode)))
    return 0;
  return -EINVAL;
}

/* Every descriptor of the model is a file, standard input at its end or
 * an output that takes everything: each is ready at once for reading and
 * writing, as the kernel says of regular files, and never in error or hung
 * up; a descriptor not open is POLLNVAL and a negative one is skipped.
 * Nothing waits, whatever the timeout. */
static long sys_poll(struct pollfd *fds, unsigned long n) {
  long ready = 0;
  for (unsigned long i = 0; i < n; i++) {
    short r = 0;
    if (fds[i].fd >= 0)
      r = desc_of(fds[i].fd)
              ? fds[i].events & (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)
              : POLLNVAL;
    fds[i].revents = r;
    ready += r != 0;
  }
  return ready;
}

/* copy_file_range between regular files: the bytes read from one,
 * at `*off_in` or its descriptor's offset, are written to the other, as
 * the kernel's copy gives them. */
static long sys_copy_range(long in, long *off_in, long out, long *off_out,
                           unsigned long len, long flags) {
  struct mnemo_desc *r = desc_of(in), *w = desc_of(out);
  if (!r || !w || !__mnemo_readable(r) || !__mnemo_writable(w) || (w->flags & O_APPEND))
    return -EBADF;
  if (flags)
    return -EINVAL;
  if (r->kind != MNEMO_FILE || w->kind != MNEMO_FILE || !S_ISREG(r->file->st->st_mode) ||
      !S_ISREG(w->file->st->st_mode))
    return (r->kind == MNEMO_DIR || w->kind == MNEMO_DIR) ? -EISDIR : -EINVAL;
  if ((off_in && *off_in < 0) || (off_out && *off_out < 0))
    return -EINVAL;
  unsigned long from = off_in ? (unsigned long)*off_in : r->off;
  unsigned long to = off_out ? (unsigned long)*off_out : w->off;
  if (len > 1UL << 20)
    len = 1UL << 20;
  char *buf = malloc(len ? len : 1);
  long n = __mnemo_read_at(r->file, buf, len, from);
  if (n > 0)
    __mnemo_write_at(w->file, buf, n, to);
  free(buf);
  *(off_in ? (unsigned long *)off_in : &r->off) = from + n;
  *(off_out ? (unsigned long *)off_out : &w->off) = to + n;
  return n;
}

/* A pipe: both ends in this process, whose writes the read end reads. */
static long sys_pipe(int *fds, long flags) {
  if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
    return -EINVAL;
  struct mnemo_file *f = __mnemo_new_pipe();
  struct mnemo_desc *end[2];
  long fd[2];
  f->readers = f->writers = 1;
  for (int i = 0; i < 2; i++) {
    end[i] = calloc(1, sizeof *end[i]);
    end[i]->kind = MNEMO_PIPE;
    end[i]->flags = (i ? O_WRONLY : O_RDONLY) | (flags & O_NONBLOCK);
    end[i]->file = f;
    end[i]->heap = 1;
    fd[i] = __mnemo_dup_from(end[i], 0, (flags & O_CLOEXEC) != 0);
    if (fd[i] < 0) {
      if (i)
        sys_close(fd[0]);
      free(end[i]);
      return fd[i];
    }
  }
  fds[0] = fd[0], fds[1] = fd[1];
  return 0;
}

static long sys_inotify_init(long flags) {
  if (flags & ~(IN_NONBLOCK | IN_CLOEXEC))
    return -EINVAL;
  struct mnemo_desc *d = calloc(1, sizeof *d);
  d->kind = MNEMO_INOTIFY;
  d->flags = O_RDONLY | ((flags & IN_NONBLOCK) ? O_NONBLOCK : 0);
  d->heap = 1;
  long fd = __mnemo_dup_from(d, 0, (flags & IN_CLOEXEC) != 0);
  if (fd < 0)
    free(d);
  return fd;
}

/* A watch of a name that exists gets the next watch descriptor. */
static long sys_inotify_add_watch(long fd, const char *path, unsigned mask) {
  struct mnemo_desc *d = desc_of(fd);
  if (!d)
    return -EBADF;
  if (d->kind != MNEMO_INOTIFY || !(mask & IN_ALL_EVENTS))
    return -EINVAL;
  long bad = __mnemo_access(AT_FDCWD, path, 0 /* F_OK */);
  return bad ? bad : (long)++d->off;
}

static long sys_inotify_rm_watch(long fd, long wd) {
  struct mnemo_desc *d = desc_of(fd);
  if (!d)
    return -EBADF;
  return d->kind == MNEMO_INOTIFY && wd > 0 && (unsigned long)wd <= d->off ? 0 : -EINVAL;
}

/* The process is alone in its group and session. The only others it can
 * name are init (pid 1) and its parent, which exist natively too and
 * belong to other users (the replay runs each test as nobody), so may
 * not be signalled; no other pid exists. kill(-1) reaches every process
 * but the caller and, as Linux's does, succeeds where any exists, whether
 * or not it may be signalled: natively one always does. A signal the
 * process sends itself is delivered (mnemo_process.c). */
static long sys_kill(long pid, long sig) {
  if (sig < 0 || sig > 64)
    return -EINVAL;
  if (pid == -1)
    return 0;
  if (pid == 1 || pid == MNEMO_PARENT_PID)
    return -EPERM;
  if (pid != MNEMO_PID && pid != -MNEMO_PID && pid != 0)
    return -ESRCH;
  if (sig == 0)
    return 0;
  return __mnemo_signal_process(sig, SI_USER);
}

/* getpgid and getsid: each of the three processes leads its own group
 * and session. */
static long sys_group_of(long pid) {
  if (pid == 0)
    return MNEMO_PID;
  return pid == 1 || pid == MNEMO_PID || pid == MNEMO_PARENT_PID ? pid : -ESRCH;
}

long __mnemo_syscall(long n, long a, long b, long c, long d, long e, long f) {
  if (__mnemo_failures.left) {
    long failed = __mnemo_injected(n);
    if (failed)
      return failed;
  }
  switch (n) {
  case SYS_read: return sys_read(a, (char *)b, c);
  case SYS_write: return sys_write(a, (const char *)b, c);
  case SYS_pread64: return sys_pread(a, (char *)b, c, d);
  case SYS_pwrite64: return sys_pwrite(a, (const char *)b, c, d);
  case SYS_readv: return sys_iov(a, (const struct iovec *)b, c, 0);
  case SYS_writev: return sys_iov(a, (const struct iovec *)b, c, 1);
  case SYS_open: return __mnemo_open(AT_FDCWD, (const char *)a, b, c);
  case SYS_openat: return __mnemo_open(a, (const char *)b, c, d);
  case SYS_close: return sys_close(a);
  case SYS_lseek: return sys_lseek(a, b, c);
  case SYS_stat: return __mnemo_stat_path(AT_FDCWD, (const char *)a, (struct stat *)b, 0);
  case SYS_lstat:
    return __mnemo_stat_path(AT_FDCWD, (const char *)a, (struct stat *)b, AT_SYMLINK_NOFOLLOW);
  case SYS_newfstatat: return __mnemo_stat_path(a, (const char *)b, (struct stat *)c, d);
  case SYS_fstat: {
    struct mnemo_desc *ds = any_desc_of(a);
    if (!ds)
      return -EBADF;
    __mnemo_stat_of(ds, (struct stat *)b);
    return 0;
  }
  case SYS_access: return __mnemo_access(AT_FDCWD, (const char *)a, b);
  case SYS_faccessat: return __mnemo_access(a, (const char *)b, c);
  case SYS_ioctl: return sys_ioctl(a, b, c);
  case SYS_fcntl: return sys_fcntl(a, b, c);
  case SYS_dup: return any_desc_of(a) ? __mnemo_dup_from(any_desc_of(a), 0, 0) : -EBADF;
  case SYS_dup2: return sys_dup2(a, b, 0);
  case SYS_dup3: return a == b ? -EINVAL : sys_dup2(a, b, (c & O_CLOEXEC) != 0);
  case SYS_getdents64: {
    struct mnemo_desc *ds = desc_of(a);
    if (!ds)
      return -EBADF;
    return ds->kind == MNEMO_DIR ? __mnemo_getdents(ds, (char *)b, c) : -ENOTDIR;
  }
  case SYS_getcwd: return __mnemo_getcwd((char *)a, b);
  case SYS_readlink: return __mnemo_readlink(AT_FDCWD, (const char *)a, (char *)b, c);
  case SYS_readlinkat: return __mnemo_readlink(a, (const char *)b, (char *)c, d);
  case SYS_umask: {
    long old = __mnemo_fs.umask;
    __mnemo_fs.umask = a & 0777;
    return old;
  }
  case SYS_clock_gettime: {
    struct timespec *ts = (struct timespec *)b;
    ts->tv_sec = MNEMO_TIME, ts->tv_nsec = 0;
    return 0;
  }
  case SYS_gettimeofday: {
    long *tv = (long *)a;
    if (tv)
      tv[0] = MNEMO_TIME, tv[1] = 0;
    return 0;
  }
  case SYS_time:
    if (a)
      *(long *)a = MNEMO_TIME;
    return MNEMO_TIME;
  case SYS_mmap: return __mnemo_mmap(b, d, desc_of(e), f);
  case SYS_munmap: return __mnemo_munmap(a);
  case SYS_mincore: return __mnemo_mincore(a, b, (unsigned char *)c);
  case SYS_sigaltstack: return __mnemo_sigaltstack((const stack_t *)a, (stack_t *)b);
  case SYS_rt_sigaction:
    return __mnemo_sigaction(a, (const struct k_sigaction *)b, (struct k_sigaction *)c, d);
  case SYS_rt_sigprocmask:
    return __mnemo_sigprocmask(a, (const unsigned long *)b, (unsigned long *)c, d);
  case SYS_faccessat2: return __mnemo_access(a, (const char *)b, c);
  case SYS_fadvise64: return on_open(a);
  case SYS_fsync:
  case SYS_fdatasync: return sys_fsync(a);
  case SYS_syncfs: return on_open(a);
  case SYS_sync: return 0;
  case SYS_fchmod:
  case SYS_fchown: {
    struct mnemo_file *f;
    long bad = file_of(a, &f);
    if (bad)
      return bad;
    return n == SYS_fchmod ? __mnemo_chmod(f, b) : __mnemo_chown(f, b, c);
  }
  case SYS_chmod:
  case SYS_fchmodat: {
    struct mnemo_file *f;
    long bad = n == SYS_chmod ? __mnemo_find(AT_FDCWD, (const char *)a, 0, &f)
                              : __mnemo_find(a, (const char *)b, 0, &f);
    return bad ? bad : __mnemo_chmod(f, n == SYS_chmod ? b : c);
  }
  case SYS_chown:
  case SYS_lchown: {
    struct mnemo_file *f;
    long bad = __mnemo_find(AT_FDCWD, (const char *)a, n == SYS_lchown, &f);
    return bad ? bad : __mnemo_chown(f, b, c);
  }
  case SYS_fchownat: {
    struct mnemo_file *f;
    long bad = __mnemo_find(a, (const char *)b, (e & AT_SYMLINK_NOFOLLOW) != 0, &f);
    return bad ? bad : __mnemo_chown(f, c, d);
  }
  case SYS_ftruncate: return sys_ftruncate(a, b);
  case SYS_truncate: {
    struct mnemo_file *f;
    long bad = __mnemo_find(AT_FDCWD, (const char *)a, 0, &f);
    return bad ? bad : __mnemo_truncate(f, b);
  }
  case SYS_fallocate: return sys_fallocate(a, b, c, d);
  case SYS_rename:
    return __mnemo_rename(AT_FDCWD, (const char *)a, AT_FDCWD, (const char *)b, 0);
  case SYS_renameat: return __mnemo_rename(a, (const char *)b, c, (const char *)d, 0);
  case SYS_renameat2: return __mnemo_rename(a, (const char *)b, c, (const char *)d, e);
  case SYS_unlink: return __mnemo_remove(AT_FDCWD, (const char *)a, 0);
  case SYS_rmdir: return __mnemo_remove(AT_FDCWD, (const char *)a, 1);
  case SYS_unlinkat: return __mnemo_remove(a, (const char *)b, (c & AT_REMOVEDIR) != 0);
  case SYS_utimensat: {
    struct mnemo_file *f;
    long bad = b ? __mnemo_find(a, (const char *)b, (d & AT_SYMLINK_NOFOLLOW) != 0, &f)
                 : file_of(a, &f);
    return bad ? bad : __mnemo_utimens(f, (const struct timespec *)c);
  }
  case SYS_mkdir: return __mnemo_make(AT_FDCWD, (const char *)a, S_IFDIR | (b & 07777), 0);
  case SYS_mkdirat: return __mnemo_make(a, (const char *)b, S_IFDIR | (c & 07777), 0);
  case SYS_mknod: return __mnemo_make(AT_FDCWD, (const char *)a, b, c);
  case SYS_mknodat: return __mnemo_make(a, (const char *)b, c, d);
  case SYS_link:
    return __mnemo_link(AT_FDCWD, (const char *)a, AT_FDCWD, (const char *)b, 0);
  case SYS_linkat: return __mnemo_link(a, (const char *)b, c, (const char *)d, e);
  case SYS_symlink: return __mnemo_symlink((const char *)a, AT_FDCWD, (const char *)b);
  case SYS_symlinkat: return __mnemo_symlink((const char *)a, b, (const char *)c);
  case SYS_chdir: return __mnemo_chdir((const char *)a);
  case SYS_fchdir: return any_desc_of(a) ? __mnemo_fchdir(any_desc_of(a)) : -EBADF;
  /* What needs privileges or other processes fails as it would for an
   * unprivileged user with no children. */
  case SYS_chroot:
  case SYS_clock_settime:
  case SYS_settimeofday:
  case SYS_setpriority:
  case SYS_setpgid:
  case SYS_setsid: return -EPERM;
  case SYS_execve: return __mnemo_exec((const char *)a);
  case SYS_fork:
  case SYS_vfork:
  case SYS_clone: return -EAGAIN;
  case SYS_wait4: return -ECHILD;
  case SYS_kill: return sys_kill(a, b);
  /* raise() and pthread_kill: the signal goes to the thread. */
  case SYS_tkill: return __mnemo_signal_tid(a, b);
  case SYS_tgkill: return a == MNEMO_PID ? __mnemo_signal_tid(b, c) : -ESRCH;
  case SYS_rt_sigsuspend: return __mnemo_sigsuspend((const unsigned long *)a, b);
  case SYS_pause: return __mnemo_pause();
  case SYS_setitimer:
    return __mnemo_setitimer(a, (const struct itimerval *)b, (struct itimerval *)c);
  case SYS_getitimer: return __mnemo_getitimer(a, (struct itimerval *)b);
  case SYS_timer_create: return __mnemo_timer_create(a, (const struct ksigevent *)b, (int *)c);
  case SYS_timer_settime:
    return __mnemo_timer_settime(a, b, (const struct itimerspec *)c, (struct itimerspec *)d);
  case SYS_timer_gettime: return __mnemo_timer_gettime(a, (struct itimerspec *)b);
  case SYS_timer_getoverrun: return __mnemo_timer_getoverrun(a);
  case SYS_timer_delete: return __mnemo_timer_delete(a);
  case SYS_rt_sigpending: return __mnemo_sigpending((unsigned long *)a, b);
  case SYS_rt_sigtimedwait:
    return __mnemo_sigtimedwait((const unsigned long *)a, (siginfo_t *)b,
                                (const struct timespec *)c, d);
  case SYS_poll:
  case SYS_ppoll: return sys_poll((struct pollfd *)a, b);
  case SYS_copy_file_range: return sys_copy_range(a, (long *)b, c, (long *)d, e, f);
  case SYS_sendfile: {
    struct mnemo_desc *w = desc_of(a);
    if (!w || !__mnemo_writable(w))
      return -EBADF;
    /* To an output (stdout, stderr), the bytes are written as write does. */
    if (w->kind == MNEMO_OUTPUT) {
      struct mnemo_desc *r = desc_of(b);
      if (!r || !__mnemo_readable(r))
        return -EBADF;
      if (r->kind != MNEMO_FILE)
        return -EINVAL;
      unsigned long len = d > 1L << 20 ? 1UL << 20 : (unsigned long)d;
      unsigned long from = c ? *(unsigned long *)c : r->off;
      char *buf = malloc(len ? len : 1);
      long n = __mnemo_read_at(r->file, buf, len, from);
      if (n > 0)
        n = sys_write(a, buf, n);
      free(buf);
      if (n > 0)
        *(c ? (unsigned long *)c : &r->off) = from + n;
      return n;
    }
    return sys_copy_range(b, (long *)c, a, 0, d, 0);
  }
  case SYS_pipe: return sys_pipe((int *)a, 0);
  case SYS_pipe2: return sys_pipe((int *)a, b);
  case SYS_inotify_init: return sys_inotify_init(0);
  case SYS_inotify_init1: return sys_inotify_init(a);
  case SYS_inotify_add_watch: return sys_inotify_add_watch(a, (const char *)b, c);
  case SYS_inotify_rm_watch: return sys_inotify_rm_watch(a, b);
  /* The machine has no network and no name service: a socket of any
     family is refused as an unknown family is, and musl's user and group
     lookups (getpwnam on a name /etc/passwd lacks) take that for "no nscd
     running", the answer a native run gets. */
  case SYS_socket: return -EAFNOSUPPORT;
  case SYS_getpriority: return 20; /* the kernel's 20 - nice, nice 0 */
  case SYS_getgroups: return 0;
  case SYS_getpgrp: return MNEMO_PID;
  case SYS_getpgid:
  case SYS_getsid: return sys_group_of(a);
  case SYS_uname: return __mnemo_sys_uname((struct utsname *)a);
  case SYS_sysinfo: return __mnemo_sysinfo((struct sysinfo *)a);
  case SYS_sched_getaffinity: return __mnemo_getaffinity(b, (unsigned char *)c);
  case SYS_statfs: {
    long r = __mnemo_access(AT_FDCWD, (const char *)a, 0);
    return r ? r : __mnemo_statfs((struct statfs *)b);
  }
  case SYS_fstatfs: return any_desc_of(a) ? __mnemo_statfs((struct statfs *)b) : -EBADF;
  /* No limit but on descriptors: the model has MNEMO_FDS of them, and a
   * replay holds the program to as many. */
  case SYS_getrlimit:
  case SYS_prlimit64: {
    struct rlimit *old = (struct rlimit *)(n == SYS_getrlimit ? b : d);
    long resource = n == SYS_getrlimit ? a : b;
    if (old)
      old->rlim_cur = old->rlim_max = resource == RLIMIT_NOFILE ? MNEMO_FDS : RLIM_INFINITY;
    return 0;
  }
  case SYS_setrlimit: return 0;
  case SYS_clock_getres: {
    struct timespec *ts = (struct timespec *)b;
    if (ts)
      ts->tv_sec = 0, ts->tv_nsec = 1;
    return 0;
  }
  /* Time does not pass: a sleep ends at once, once the other threads
   * that can run have. */
  case SYS_nanosleep:
  case SYS_clock_nanosleep: __mnemo_yield(); return 0;
  case SYS_sched_yield: return __mnemo_yield();
  case SYS_futex: return __mnemo_futex((volatile int *)a, b, c, d, e, f);
  case SYS_getrandom:
    mnemo_random((unsigned char *)a, b);
    return b;
  default: return __mnemo_kernel(n, a, b, c, d, e, f);
  }
}
