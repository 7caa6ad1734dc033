/* The model of files behind mnemo's system calls, shared by the calls
 * (mnemo_syscall.c, mnemo_files.c) and the set-up of a symbolic
 * environment (mnemo_posix.c). Everything here is program memory, so each
 * path has its own copy of the model, forked with the path. */
#ifndef MNEMO_FS_H
#define MNEMO_FS_H

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* The time every clock reads: runs are deterministic (2024-01-01 UTC). */
#define MNEMO_TIME 1704067200L

/* Descriptors 0 to MNEMO_FDS - 1. */
#define MNEMO_FDS 64

/* A file of the model: a symbolic one (A, B, ..., stdin, stdout) made by
 * the environment's set-up, or a host file named with `mnemo run --file`,
 * read only. */
struct mnemo_file {
  /* The name a program opens it by ("A", or the host path). */
  const char *path;
  int read_only;
  /* One of A, B, ...: a replay makes them the program's own, so their
   * contents, size, mode and times can change. */
  int own;
  unsigned long size;
  /* The bytes held, the first `stored` of the file (`cap` allocated);
   * from there to `size` the file reads as zeros, as a sparse one does. */
  char *contents;
  unsigned long stored, cap;
  struct stat *st;
  struct mnemo_file *next;
};

/* What an open file description reads from and writes to. */
enum mnemo_kind {
  MNEMO_CLOSED,
  /* Standard input without --sym-stdin: always at its end. */
  MNEMO_EMPTY_IN,
  /* The output the engine keeps for the path: stdout or stderr. */
  MNEMO_OUTPUT,
  MNEMO_FILE,
  /* The working directory, which lists the symbolic files. */
  MNEMO_DIR,
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
  unsigned sym_files;
  int hosts_loaded;
  unsigned umask;
};

extern struct mnemo_fs __mnemo_fs;
extern struct mnemo_desc __mnemo_std[3];

/* Symbolic files: made by the environment's set-up. */
struct mnemo_file *__mnemo_new_file(const char *path, unsigned long size,
                                     const char *data_name,
                                     const char *stat_name);
/* The descriptor calls (mnemo_files.c); each returns what the kernel
 * would (a negated errno on failure). */
long __mnemo_open(int dirfd, const char *path, int flags);
long __mnemo_stat_path(int dirfd, const char *path, struct stat *st, int flags);
long __mnemo_access(const char *path, int mode);
long __mnemo_readlink(const char *path);
long __mnemo_change(const char *path, int create);
long __mnemo_remove(const char *path, int dir);
long __mnemo_chdir(const char *path);
long __mnemo_getdents(struct mnemo_desc *d, char *buf, unsigned long n);
/* Changes to a file of the program's own (`own`); each returns what the
 * kernel would. `__mnemo_own` finds the one a path names: ENOENT if there
 * is none, EROFS for what the program may not change. */
long __mnemo_own(int dirfd, const char *path, struct mnemo_file **f);
int __mnemo_is_dev_null(const struct mnemo_file *f);
long __mnemo_read_at(struct mnemo_file *f, char *buf, unsigned long n,
                     unsigned long off);
long __mnemo_write_at(struct mnemo_file *f, const char *buf, unsigned long n,
                      unsigned long off);
long __mnemo_resize(struct mnemo_file *f, long size);
long __mnemo_chmod(struct mnemo_file *f, unsigned mode);
long __mnemo_utimens(struct mnemo_file *f, const struct timespec *times);
void __mnemo_stat_of(struct mnemo_desc *d, struct stat *st);

/* The engine's side: the calls it implements itself (output, exit, ids,
 * and the message and count for unsupported calls), and the host files. */
long __mnemo_kernel(long n, long a, long b, long c, long d, long e, long f);
long __mnemo_host_file(long index, char **path, char **contents,
                       struct stat *st);

void klee_make_symbolic(void *addr, size_t nbytes, const char *name);
void klee_assume(uintptr_t condition);
/* A value `x` may have on the path, without constraining it. */
long mnemo_example(long x);
int klee_range(int begin, int end, const char *name);

#endif
