/* The model of files behind mnemo's system calls, shared by the calls
 * (mnemo_syscall.c, mnemo_files.c) and the set-up of a symbolic
 * environment (mnemo_posix.c). Everything here is program memory, so each
 * path has its own copy of the model, forked with the path. */
#ifndef MNEMO_FS_H
#define MNEMO_FS_H

#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

/* MNEMO_TIME, MNEMO_UPTIME and the machine's facts, which the replay
 * library gives a native run too. */
#include "../../include/mnemo/model.h"

/* The user and group the program runs as, and owns its files as: what
 * the engine's getuid and getgid answer (nobody, nogroup), as a replay
 * run by root runs the tests. */
#define MNEMO_USER 65534

/* A file of the model (an inode): a symbolic one (A, B, ..., stdin,
 * stdout) made by the environment's set-up, a host file named with
 * `mnemo run --file`, read only, /dev/null, a directory, or one the
 * program made. The names a file has are `struct mnemo_name`s. */
struct mnemo_file {
  /* A host file's path, as it is looked up; for the others a name they
   * were made with (stdin and stdout have none). */
  const char *path;
  int read_only;
  /* The program's own: A, B, ..., the working directory and what the
   * program makes. A replay runs the program as a user who owns them, so
   * their contents, size, mode and times change, and names are made and
   * removed in the directories. */
  int own;
  unsigned long size;
  /* The bytes held, the first `stored` of the file (`cap` allocated);
   * from there to `size` the file reads as zeros, as a sparse one does.
   * A symbolic link holds its target. */
  char *contents;
  unsigned long stored, cap;
  struct stat *st;
  /* A pipe's ends open for reading and for writing. */
  unsigned readers, writers;
  /* A symbolic file whose status has not yet been asked whether it is a
   * regular file or a directory (see __mnemo_settle). */
  int unsettled;
  struct mnemo_file *next;
};

/* A name in a directory of the model, for a file or a directory. A file
 * keeps living while a descriptor has it open, named or not. */
struct mnemo_name {
  char *name;
  struct mnemo_file *dir;
  struct mnemo_file *file;
  struct mnemo_name *next;
};

/* What an open file description reads from and writes to. */
enum mnemo_kind {
  MNEMO_CLOSED,
  /* Standard input without --sym-stdin: always at its end. */
  MNEMO_EMPTY_IN,
  /* The output the engine keeps for the path: stdout or stderr. */
  MNEMO_OUTPUT,
  MNEMO_FILE,
  /* A directory (`file`), which lists its names. */
  MNEMO_DIR,
  /* An end of a pipe (`file` holds what was written, `off` where the
   * read end is). */
  MNEMO_PIPE,
  /* An inotify instance: only the program changes the model's files, so
   * no event ever comes (`off` counts the watches added). */
  MNEMO_INOTIFY,
};

/* An open file description, shared by the descriptors dup makes. */
struct mnemo_desc {
  int refs;
  enum mnemo_kind kind;
  int flags;
  unsigned long off;
  /* The file read or written (for an output, the symbolic stdout whose
   * status fstat gives, if any). */
  struct mnemo_file *file;
  /* For an output: 1 (stdout) or 2 (stderr). */
  int stream;
  /* Made by malloc (the three standard ones are static). */
  int heap;
};

/* Whether a descriptor was opened to read its file, to write it. */
static inline int __mnemo_readable(const struct mnemo_desc *d) { return (d->flags & 3) != O_WRONLY; }
static inline int __mnemo_writable(const struct mnemo_desc *d) { return (d->flags & 3) != O_RDONLY; }

struct mnemo_fd {
  struct mnemo_desc *desc;
  int cloexec;
};

/* The state of the model. */
struct mnemo_fs {
  struct mnemo_fd fds[MNEMO_FDS];
  /* The symbolic files, A first, in a list with the host files once they
   * are loaded. */
  struct mnemo_file *files;
  /* The names in the directories the program may change, oldest first. */
  struct mnemo_name *names;
  /* The working directory (0: the one a run starts in). */
  struct mnemo_file *cwd;
  unsigned long next_ino;
  /* Pipes are numbered apart: a native run's keep the kernel's, and so
   * must not shift the numbers of what the program makes. */
  unsigned long pipes;
  unsigned sym_files;
  int hosts_loaded;
  unsigned umask;
};

extern struct mnemo_fs __mnemo_fs;

/* Failure injection (mnemo_fail.c): the families of calls that may fail,
 * in the order of KLEE's objects. */
enum {
  MNEMO_FAIL_READ,
  MNEMO_FAIL_WRITE,
  MNEMO_FAIL_CLOSE,
  MNEMO_FAIL_FTRUNCATE,
  MNEMO_FAIL_GETCWD,
  MNEMO_FAIL_FAMILIES
};
struct mnemo_failures {
  /* How many calls may still fail: 0 without `--max-fail`. */
  unsigned left;
  unsigned calls[MNEMO_FAIL_FAMILIES];
  int index[MNEMO_FAIL_FAMILIES];
};
extern struct mnemo_failures __mnemo_failures;
/* Makes the symbolic indices, and lets `max` calls fail. */
void __mnemo_failures_start(unsigned max);
/* Counts system call `n`; the negated errno it fails with, or 0. */
long __mnemo_injected(long n);
extern struct mnemo_desc __mnemo_std[3];

/* Symbolic files: made by the environment's set-up. */
struct mnemo_file *__mnemo_new_file(const char *path, unsigned long size,
                                     const char *data_name,
                                     const char *stat_name);
/* The calls that name files by path (mnemo_paths.c, mnemo_names.c);
 * each returns what the kernel would (a negated errno on failure). */
long __mnemo_open(int dirfd, const char *path, int flags, unsigned mode);
long __mnemo_stat_path(int dirfd, const char *path, struct stat *st, int flags);
long __mnemo_access(int dirfd, const char *path, int mode);
long __mnemo_readlink(int dirfd, const char *path, char *buf, long size);
long __mnemo_make(int dirfd, const char *path, unsigned mode, unsigned dev);
long __mnemo_symlink(const char *target, int dirfd, const char *path);
long __mnemo_link(int olddirfd, const char *old, int newdirfd, const char *new,
                  int flags);
long __mnemo_rename(int olddirfd, const char *old, int newdirfd, const char *new,
                    unsigned flags);
long __mnemo_remove(int dirfd, const char *path, int dir);
long __mnemo_exec(const char *path);
long __mnemo_chdir(const char *path);
long __mnemo_fchdir(struct mnemo_desc *d);
long __mnemo_getcwd(char *buf, unsigned long size);
long __mnemo_getdents(struct mnemo_desc *d, char *buf, unsigned long n);
/* What `path` names (from `dirfd`; a final symbolic link followed unless
 * `nofollow`): 0 and the file in `f`, or the lookup's error. */
long __mnemo_find(int dirfd, const char *path, int nofollow, struct mnemo_file **f);
int __mnemo_is_dev_null(const struct mnemo_file *f);
int __mnemo_is_work_dir(const struct mnemo_file *f);

/* Mappings (mnemo_memory.c). */
long __mnemo_mmap(unsigned long len, long flags, struct mnemo_desc *file, long off);
long __mnemo_munmap(long addr);
long __mnemo_mincore(long addr, unsigned long len, unsigned char *vec);

/* The process's own state and its machine (mnemo_process.c); each call
 * returns what the kernel would. */
struct k_sigaction;
struct statfs;
struct sysinfo;
struct utsname;
long __mnemo_sigaction(long sig, const struct k_sigaction *act,
                       struct k_sigaction *old, unsigned long size);
long __mnemo_sigprocmask(long how, const unsigned long *set, unsigned long *old,
                         unsigned long size);
long __mnemo_sigaltstack(const stack_t *ss, stack_t *old);
/* Whether the kernel would discard `sig` sent to the process. */
int __mnemo_discarded(long sig);
/* `sig` to the running thread, to the process, to the process's thread
 * `tid`; `code` is siginfo's si_code. */
long __mnemo_signal_self(long sig, int code);
long __mnemo_signal_process(long sig, int code);
long __mnemo_signal_tid(long tid, long sig);
long __mnemo_sigsuspend(const unsigned long *mask, unsigned long size);
long __mnemo_sigpending(unsigned long *set, unsigned long size);
long __mnemo_sigtimedwait(const unsigned long *set, siginfo_t *info, const struct timespec *limit,
                          unsigned long size);
/* A POSIX timer's signal (0 where discarded), and whether a signal sent
 * now would change anything; `tid` 0 is the process. */
int __mnemo_signal_timer(long tid, long sig, int timer, union sigval value);
int __mnemo_signal_matters(long tid, long sig);
/* The timers (mnemo_timers.c): nanoseconds to the next expiry that would
 * change anything (0: none), letting time pass to it (how far), letting
 * `dt` pass, and a timer's signal taken (its overruns). */
long long __mnemo_next_expiry(void);
long long __mnemo_time_passes(void);
void __mnemo_time_advance(long long dt);
int __mnemo_timer_taken(int id);
struct itimerval;
struct itimerspec;
struct ksigevent;
long __mnemo_setitimer(long which, const struct itimerval *new, struct itimerval *old);
long __mnemo_getitimer(long which, struct itimerval *value);
long __mnemo_timer_create(long clock, const struct ksigevent *ev, int *id);
long __mnemo_timer_settime(long id, long flags, const struct itimerspec *new,
                           struct itimerspec *old);
long __mnemo_timer_gettime(long id, struct itimerspec *cur);
long __mnemo_timer_getoverrun(long id);
long __mnemo_timer_delete(long id);
/* Waits for another thread's event or the real timer (mnemo_process.c). */
long __mnemo_wait(int restartable);
long __mnemo_pause(void);
/* Something a waiting thread may wait for happened. */
void __mnemo_event(void);
/* Threads (mnemo_thread.c): the system calls another thread may run in. */
long __mnemo_futex(volatile int *addr, long op, long val, long timeout, long addr2, long val3);
long __mnemo_yield(void);
long __mnemo_sys_uname(struct utsname *u);
long __mnemo_sysinfo(struct sysinfo *s);
long __mnemo_getaffinity(unsigned long len, unsigned char *mask);
long __mnemo_statfs(struct statfs *st);

/* The lookup (mnemo_names.c) the calls by path (mnemo_paths.c) share. */

/* Where a path leads. */
struct place {
  /* What it names, or 0 (then `err` says why). */
  struct mnemo_file *file;
  /* That file's name in a directory of the model, if it has one. */
  struct mnemo_name *name;
  /* The directory of the last component: for a missing name (`last`),
   * where it would be made. */
  struct mnemo_file *dir;
  const char *last;
  unsigned long last_len;
  long err;
  /* The path ends in a slash. */
  int slash;
  /* The last component is "." (1), ".." (2), or the path is "/" (3). */
  int dots;
};

/* Looks `path` up from `dirfd` (AT_FDCWD: the working directory),
 * following a final symbolic link if `follow`; `making` says the call may
 * make the name if it is missing. */
void __mnemo_lookup(int dirfd, const char *path, int follow, int making,
                    struct place *pl);
/* A copy of `len` bytes of `s`, terminated. */
char *__mnemo_copy(const char *s, unsigned long len);
/* Whether a string has no symbolic byte up to its terminator. */
int __mnemo_concrete(const char *p);
/* `path` fixed to one value it may have on this path, or 0 if longer than
 * PATH_MAX. */
char *__mnemo_fix(const char *path);
/* Removes a name; a file other than a directory loses a link. */
void __mnemo_drop_name(struct mnemo_name *gone);
int __mnemo_holds_names(struct mnemo_file *dir);
/* A directory's parent: "/" is its own, and so is a removed one. */
struct mnemo_file *__mnemo_parent_of(struct mnemo_file *dir);
/* Whether the program may remove or replace the name of `f` in `dir`. */
long __mnemo_may_unname(struct mnemo_file *dir, struct mnemo_file *f);

static inline int __mnemo_is_dir(const struct mnemo_file *f) { return S_ISDIR(f->st->st_mode); }

/* The permission bits (R_OK, W_OK, X_OK) that answer for the replay's
 * user: it owns the program's files and no other, and is in none of their
 * groups, so the owner's bits answer for its own and the others' bits for
 * the rest. */
static inline unsigned __mnemo_granted(const struct mnemo_file *f) {
  return f->own ? (f->st->st_mode >> 6) & 7 : f->st->st_mode & 7;
}

/* Whether the names in `dir` may be looked up (Linux's search permission):
 * without it even "." in `dir` is EACCES. */
static inline int __mnemo_searchable(const struct mnemo_file *dir) {
  return (__mnemo_granted(dir) & X_OK) != 0;
}

/* Whether the program may make and remove names in `dir`: its own while
 * its owner may write it, or one everyone may write (/tmp). */
static inline int __mnemo_writable_dir(const struct mnemo_file *dir) {
  return (__mnemo_granted(dir) & W_OK) != 0;
}
/* Changes to a file (mnemo_files.c): each returns what the kernel
 * would for a user who owns the program's own files and no other. */
long __mnemo_read_at(struct mnemo_file *f, char *buf, unsigned long n,
                     unsigned long off);
long __mnemo_write_at(struct mnemo_file *f, const char *buf, unsigned long n,
                      unsigned long off);
long __mnemo_resize(struct mnemo_file *f, long size);
long __mnemo_truncate(struct mnemo_file *f, long size);
long __mnemo_chmod(struct mnemo_file *f, unsigned mode);
long __mnemo_chown(struct mnemo_file *f, long uid, long gid);
long __mnemo_utimens(struct mnemo_file *f, const struct timespec *times);
void __mnemo_settle(struct mnemo_file *f);
void __mnemo_stat_file(struct mnemo_file *f, struct stat *st);
void __mnemo_stat_of(struct mnemo_desc *d, struct stat *st);
/* The lowest free descriptor from `min` on, made to share `d` (EMFILE
 * if none is free). */
long __mnemo_dup_from(struct mnemo_desc *d, long min, int cloexec);
/* A new file of the program's own, of mode `mode` (type and bits). */
struct mnemo_file *__mnemo_new_own(const char *path, unsigned mode);
/* A new pipe's file, numbered apart from what the program makes. */
struct mnemo_file *__mnemo_new_pipe(void);
/* Gives `f` the name `name` in `dir` (0: the model's first working
 * directory). */
void __mnemo_add_name(struct mnemo_file *dir, char *name, struct mnemo_file *f);
/* Names the host file `f` in the tree by its absolute path, making the
 * directories on the way (root's) where the model has none. */
void __mnemo_place_host(struct mnemo_file *f);
/* The directories named in `dir`. */
unsigned __mnemo_subdirs(struct mnemo_file *dir);
void __mnemo_load_hosts(void);

/* The engine's side: the calls it implements itself (output, exit, ids,
 * and the message and count for unsupported calls), and the host files. */
long __mnemo_kernel(long n, long a, long b, long c, long d, long e, long f);
long __mnemo_host_file(long index, char **path, char **contents,
                       struct stat *st);

void klee_make_symbolic(void *addr, size_t nbytes, const char *name);
void klee_prefer_cex(void *object, uintptr_t condition);
void klee_assume(uintptr_t condition);
unsigned klee_is_symbolic(uintptr_t n);
/* A value `x` may have on the path, without constraining it. */
long mnemo_example(long x);
/* The bytes of its object from `p` on (0 if `p` points into none). */
unsigned long mnemo_bytes_left(const void *p);
int klee_range(int begin, int end, const char *name);

#endif
