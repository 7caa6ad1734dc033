/* The files of mnemo's model and the calls that name them by path: the
 * symbolic files A, B, ... (opened by exactly that name, as in KLEE), the
 * host files `mnemo run --file PATH` names (read only, by the path as
 * given or as the engine resolved it), /dev/null, and the working
 * directory "/", which lists the symbolic files (its parent ".." is
 * itself). Nothing else exists (ENOENT), and no name can be made, removed
 * or renamed (EROFS); the symbolic files, which a replay makes the
 * program's own in a directory that is not, can change: contents, size,
 * mode and times. A null path is EFAULT, as the kernel's
 * copy of it fails; another bad pointer is the program's memory error. */
#include "mnemo_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a path names. */
enum found { NOTHING, DIRECTORY, REGULAR };

static int same(const char *a, const char *b) {
  while (*a == *b) {
    if (!*a)
      return 1;
    a++, b++;
  }
  return 0;
}

/* Every time of a status the model makes: the clock's. */
static void at_clock_time(struct stat *st) {
  st->st_atim = st->st_mtim = st->st_ctim = (struct timespec){MNEMO_TIME, 0};
}

static void add_file(struct mnemo_file *f) {
  struct mnemo_file **end = &__mnemo_fs.files;
  while (*end)
    end = &(*end)->next;
  *end = f;
}

struct mnemo_file *__mnemo_new_file(const char *path, unsigned long size,
                                     const char *data_name,
                                     const char *stat_name) {
  struct mnemo_file *f = calloc(1, sizeof *f);
  f->path = path;
  f->size = f->stored = f->cap = size;
  f->contents = malloc(size);
  f->st = malloc(sizeof *f->st);
  klee_make_symbolic(f->contents, size, data_name);
  klee_make_symbolic(f->st, sizeof *f->st, stat_name);
  f->st->st_size = size;
  f->st->st_blocks = 8;
  /* Only the files A, B, ... can be opened; stdin and stdout cannot. */
  if (path) {
    /* A replay recreates A, B, ... as new regular files with the
     * status's permission bits, and nothing else of it: their device,
     * inode, links, owner and times are the file system's. Left symbolic
     * here they would lead to paths no replay can take (a hard link, a
     * file in the future) and make every hash of an inode (du's and
     * fts's sets of visited files) a question for the solver, so they
     * are what a new file in the working directory has. */
    klee_assume(S_ISREG(f->st->st_mode));
    f->own = 1;
    f->st->st_dev = 0;
    f->st->st_ino = 100 + __mnemo_fs.sym_files;
    f->st->st_nlink = 1;
    f->st->st_uid = 0;
    f->st->st_gid = 0;
    f->st->st_rdev = 0;
    f->st->st_blksize = 4096;
    at_clock_time(f->st);
    add_file(f);
    __mnemo_fs.sym_files++;
  } else {
    /* stdin's and stdout's statuses keep KLEE's constraints: an inode
     * number that readdir does not skip, a block size a buffer can take,
     * and not a directory. */
    klee_assume((f->st->st_ino & 0x7FFFFFFF) != 0);
    klee_assume(!S_ISDIR(f->st->st_mode));
    klee_assume((f->st->st_blksize & ~0xFFFF) == 0);
  }
  return f;
}

/* The host files, asked of the engine once per path that looks for one. */
static void load_hosts(void) {
  if (__mnemo_fs.hosts_loaded)
    return;
  __mnemo_fs.hosts_loaded = 1;
  for (long i = 0;; i++) {
    char *path, *contents;
    struct stat *st = malloc(sizeof *st);
    long size = __mnemo_host_file(i, &path, &contents, st);
    if (size < 0) {
      free(st);
      return;
    }
    struct mnemo_file *f = calloc(1, sizeof *f);
    f->path = path;
    f->read_only = 1;
    f->size = f->stored = f->cap = size;
    f->contents = contents;
    f->st = st;
    add_file(f);
  }
}

/* /dev/null: a file of no bytes that takes every write, as the
 * character device does (a write past a file's end is dropped). */
static struct stat dev_null_st = {
    .st_mode = S_IFCHR | 0666,
    .st_nlink = 1,
    .st_rdev = (1 << 8) | 3,
    .st_ino = 5,
    .st_dev = 6,
    .st_blksize = 4096,
    .st_atim = {MNEMO_TIME, 0},
    .st_mtim = {MNEMO_TIME, 0},
    .st_ctim = {MNEMO_TIME, 0},
};
static struct mnemo_file dev_null = {.path = "/dev/null", .st = &dev_null_st};

int __mnemo_is_dev_null(const struct mnemo_file *f) { return f == &dev_null; }

/* The names of the working directory a path can have; ".." too, since a
 * program that lists the directory with its dot entries (ls -a) looks
 * each of them up. */
static int names_directory(const char *path) {
  return same(path, ".") || same(path, "/") || same(path, "./") || same(path, "..");
}

/* The file or directory `path` names, in that order: a symbolic file, a
 * host file, /dev/null, the working directory. */
static enum found lookup(const char *path, struct mnemo_file **out) {
  char c = path[0];
  *out = 0;
  if (c == 0)
    return NOTHING;
  struct mnemo_file *f = __mnemo_fs.files;
  if (path[1] == 0) {
    for (unsigned i = 0; i < __mnemo_fs.sym_files; i++, f = f->next) {
      if (c == 'A' + (char)i) {
        *out = f;
        return REGULAR;
      }
    }
  }
  load_hosts();
  for (f = __mnemo_fs.files; f; f = f->next) {
    if (f->read_only && same(path, f->path)) {
      *out = f;
      return REGULAR;
    }
  }
  if (same(path, dev_null.path)) {
    *out = &dev_null;
    return REGULAR;
  }
  return names_directory(path) ? DIRECTORY : NOTHING;
}

/* Paths relative to a descriptor other than the working directory are
 * looked up as if relative to it: the model has one directory. */
static long check_dirfd(int dirfd, const char *path) {
  if (dirfd == AT_FDCWD || path[0] == '/')
    return 0;
  if (dirfd < 0 || dirfd >= MNEMO_FDS || !__mnemo_fs.fds[dirfd].desc)
    return -EBADF;
  return __mnemo_fs.fds[dirfd].desc->kind == MNEMO_DIR ? 0 : -ENOTDIR;
}

long __mnemo_open(int dirfd, const char *path, int flags) {
  struct mnemo_file *f;
  if (!path)
    return -EFAULT;
  long bad = check_dirfd(dirfd, path);
  if (bad)
    return bad;
  enum found what = lookup(path, &f);
  int writing = (flags & 3) != O_RDONLY || (flags & O_TRUNC);
  if (what == NOTHING)
    return (flags & O_CREAT) ? -EROFS : -ENOENT;
  if ((flags & O_CREAT) && (flags & O_EXCL))
    return -EEXIST;
  if (what == DIRECTORY && writing)
    return -EISDIR;
  if (what == REGULAR && (flags & O_DIRECTORY))
    return -ENOTDIR;
  if (what == REGULAR && f->read_only && writing)
    return -EROFS;
  struct mnemo_desc *d = calloc(1, sizeof *d);
  d->kind = what == DIRECTORY ? MNEMO_DIR : MNEMO_FILE;
  d->flags = flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC);
  d->file = f;
  d->heap = 1;
  if (what == REGULAR && (flags & O_TRUNC) && f->own)
    __mnemo_resize(f, 0);
  for (int fd = 0; fd < MNEMO_FDS; fd++) {
    if (!__mnemo_fs.fds[fd].desc) {
      __mnemo_fs.fds[fd].desc = d;
      __mnemo_fs.fds[fd].cloexec = (flags & O_CLOEXEC) != 0;
      d->refs = 1;
      return fd;
    }
  }
  free(d);
  return -EMFILE;
}

/* The status of what is not a file of the model: the directory, and the
 * standard descriptors without a symbolic file (pipes, as when a harness
 * runs the program). */
static void plain_stat(struct stat *st, unsigned mode, unsigned long ino) {
  memset(st, 0, sizeof *st);
  st->st_mode = mode;
  st->st_ino = ino;
  st->st_nlink = S_ISDIR(mode) ? 2 : 1;
  st->st_blksize = 4096;
  at_clock_time(st);
  /* A directory takes a block, as a new one of ext4 or xfs does: du of
   * the replay's scratch directory counts it. */
  if (S_ISDIR(mode)) {
    st->st_size = 4096;
    st->st_blocks = 8;
  }
}

void __mnemo_stat_of(struct mnemo_desc *d, struct stat *st) {
  if (d->file)
    __builtin_memcpy(st, d->file->st, sizeof *st);
  else if (d->kind == MNEMO_DIR)
    plain_stat(st, S_IFDIR | 0755, 1);
  else
    plain_stat(st, S_IFIFO | 0600, 2 + d->stream);
}

long __mnemo_stat_path(int dirfd, const char *path, struct stat *st, int flags) {
  struct mnemo_file *f;
  if (!path)
    return -EFAULT;
  if ((flags & AT_EMPTY_PATH) && path[0] == 0) {
    if (dirfd < 0 || dirfd >= MNEMO_FDS || !__mnemo_fs.fds[dirfd].desc)
      return -EBADF;
    __mnemo_stat_of(__mnemo_fs.fds[dirfd].desc, st);
    return 0;
  }
  long bad = check_dirfd(dirfd, path);
  if (bad)
    return bad;
  switch (lookup(path, &f)) {
  case REGULAR: __builtin_memcpy(st, f->st, sizeof *st); return 0;
  case DIRECTORY: plain_stat(st, S_IFDIR | 0755, 1); return 0;
  default: return -ENOENT;
  }
}

/* What an existing `path` names, in `what` and `f`; else the error of
 * looking it up (a null path is EFAULT, a missing name ENOENT). */
static long existing(const char *path, enum found *what, struct mnemo_file **f) {
  if (!path)
    return -EFAULT;
  *what = lookup(path, f);
  return *what == NOTHING ? -ENOENT : 0;
}

long __mnemo_access(const char *path, int mode) {
  struct mnemo_file *f;
  enum found what;
  long bad = existing(path, &what, &f);
  if (bad)
    return bad;
  if ((mode & W_OK) && (what == DIRECTORY || f->read_only))
    return -EROFS;
  return 0;
}

/* A call that would change the directory or a file's metadata (unlink,
 * rename, chmod, utimensat, ...; with `create`, one that makes a new
 * name: mkdir, link, mknod, ...): the model keeps both as they are, a
 * read-only file system (EROFS), after the errors the path's lookup gives. */
long __mnemo_change(const char *path, int create) {
  struct mnemo_file *f;
  if (!path)
    return -EFAULT;
  enum found what = lookup(path, &f);
  if (create)
    return what == NOTHING ? -EROFS : -EEXIST;
  return what == NOTHING ? -ENOENT : -EROFS;
}

long __mnemo_own(int dirfd, const char *path, struct mnemo_file **f) {
  enum found what;
  long bad = path ? check_dirfd(dirfd, path) : -EFAULT;
  if (!bad)
    bad = existing(path, &what, f);
  if (bad)
    return bad;
  return what == REGULAR && (*f)->own ? 0 : -EROFS;
}

/* The blocks a file of `stored` bytes takes on ext4: none when empty,
 * else whole 4 KiB blocks (the sparse part past `stored` takes none). */
static void set_size(struct mnemo_file *f, unsigned long size) {
  f->size = size;
  f->st->st_size = size;
  f->st->st_blocks = (f->stored + 4095) / 4096 * 8;
  f->st->st_mtim = f->st->st_ctim = (struct timespec){MNEMO_TIME, 0};
}

long __mnemo_read_at(struct mnemo_file *f, char *buf, unsigned long n,
                     unsigned long off) {
  if (off >= f->size)
    return 0;
  if (n > f->size - off)
    n = f->size - off;
  unsigned long held = off < f->stored ? f->stored - off : 0;
  if (held > n)
    held = n;
  __builtin_memcpy(buf, f->contents + off, held);
  __builtin_memset(buf + held, 0, n - held);
  return n;
}

/* Bytes are kept up to this offset; a file written past it grows, but
 * reads as zeros there (a program writing that much is not what the
 * model is for). */
#define MNEMO_KEPT_MAX (1UL << 20)

/* Makes `contents` hold the first `end` bytes (at most MNEMO_KEPT_MAX),
 * the new ones zero. */
static void hold(struct mnemo_file *f, unsigned long end) {
  if (end > MNEMO_KEPT_MAX)
    end = MNEMO_KEPT_MAX;
  if (end <= f->stored)
    return;
  if (end > f->cap) {
    unsigned long cap = f->cap * 2 > end ? f->cap * 2 : end;
    char *grown = realloc(f->contents, cap);
    if (!grown)
      return;
    f->contents = grown;
    f->cap = cap;
  }
  __builtin_memset(f->contents + f->stored, 0, end - f->stored);
  f->stored = end;
}

/* A file of the program's own grows as it is written past its end; any
 * other (/dev/null) keeps its size and drops those bytes. */
long __mnemo_write_at(struct mnemo_file *f, const char *buf, unsigned long n,
                      unsigned long off) {
  unsigned long end = off + n;
  if (f->own) {
    if (end > f->size)
      hold(f, end);
    set_size(f, end > f->size ? end : f->size);
  }
  if (off < f->stored) {
    unsigned long k = n < f->stored - off ? n : f->stored - off;
    __builtin_memcpy(f->contents + off, buf, k);
  }
  return n;
}

/* The largest file ext4 holds (with 4 KiB blocks). */
#define MNEMO_MAX_FILE 17592186040320L

/* truncate and ftruncate: the size is fixed to one value of the path's. */
long __mnemo_resize(struct mnemo_file *f, long size) {
  if (size < 0)
    return -EINVAL;
  if (size > MNEMO_MAX_FILE)
    return -EFBIG;
  long fixed = mnemo_example(size);
  klee_assume(size == fixed);
  unsigned long to = (unsigned long)fixed;
  /* Past `stored` the file reads as zeros: growing needs no bytes. */
  if (to < f->stored)
    f->stored = to;
  set_size(f, to);
  return 0;
}

long __mnemo_chmod(struct mnemo_file *f, unsigned mode) {
  f->st->st_mode = (f->st->st_mode & S_IFMT) | (mode & 07777);
  f->st->st_ctim = (struct timespec){MNEMO_TIME, 0};
  return 0;
}

/* utimensat's times: none is the clock's for both; each may be UTIME_NOW
 * or UTIME_OMIT. */
long __mnemo_utimens(struct mnemo_file *f, const struct timespec *times) {
  struct timespec *to[2] = {&f->st->st_atim, &f->st->st_mtim};
  for (int i = 0; times && i < 2; i++) {
    long ns = times[i].tv_nsec;
    if (ns != UTIME_NOW && ns != UTIME_OMIT && (ns < 0 || ns > 999999999))
      return -EINVAL;
  }
  for (int i = 0; i < 2; i++) {
    if (!times || times[i].tv_nsec == UTIME_NOW)
      *to[i] = (struct timespec){MNEMO_TIME, 0};
    else if (times[i].tv_nsec != UTIME_OMIT)
      *to[i] = times[i];
  }
  f->st->st_ctim = (struct timespec){MNEMO_TIME, 0};
  return 0;
}

/* unlink (dir = 0) and rmdir (dir = 1) fail as the kernel's checks do
 * before it asks for write permission: a directory cannot be unlinked;
 * rmdir of a file is ENOTDIR, and of the directory itself by a name whose
 * last component is "." EINVAL, ".." ENOTEMPTY, "/" EBUSY. What is left
 * is the read-only file system's EROFS. */
long __mnemo_remove(const char *path, int dir) {
  struct mnemo_file *f;
  enum found what;
  long bad = existing(path, &what, &f);
  if (bad)
    return bad;
  if (!dir)
    return what == DIRECTORY ? -EISDIR : -EROFS;
  if (what == REGULAR)
    return -ENOTDIR;
  if (same(path, "/"))
    return -EBUSY;
  return same(path, "..") ? -ENOTEMPTY : -EINVAL;
}

/* The working directory stays "/": changing to it (or to ".") succeeds,
 * to a file is ENOTDIR, to anything else ENOENT. */
long __mnemo_chdir(const char *path) {
  struct mnemo_file *f;
  if (!path)
    return -EFAULT;
  enum found what = lookup(path, &f);
  if (what == NOTHING)
    return -ENOENT;
  return what == DIRECTORY ? 0 : -ENOTDIR;
}

/* No file of the model is a link. */
long __mnemo_readlink(const char *path) {
  struct mnemo_file *f;
  if (!path)
    return -EFAULT;
  return lookup(path, &f) == NOTHING ? -ENOENT : -EINVAL;
}

/* One entry of the directory: ".", "..", then the symbolic files. */
static int entry(unsigned long i, const char **name, unsigned long *ino) {
  static const char *dots[2] = {".", ".."};
  if (i < 2) {
    *name = dots[i];
    *ino = 1;
    return 1;
  }
  struct mnemo_file *f = __mnemo_fs.files;
  for (unsigned long k = 2; f && k < i; k++)
    f = f->next;
  if (!f || i - 2 >= __mnemo_fs.sym_files)
    return 0;
  *name = f->path;
  *ino = f->st->st_ino & 0x7FFFFFFF;
  return 1;
}

long __mnemo_getdents(struct mnemo_desc *d, char *buf, unsigned long n) {
  unsigned long used = 0;
  const char *name;
  unsigned long ino;
  while (entry(d->off, &name, &ino)) {
    unsigned long len = strlen(name);
    unsigned long reclen = (19 + len + 1 + 7) & ~7UL;
    if (used + reclen > n)
      return used ? (long)used : -EINVAL;
    char *p = buf + used;
    memset(p, 0, reclen);
    *(unsigned long *)p = ino;
    *(long *)(p + 8) = d->off + 1;
    *(unsigned short *)(p + 16) = reclen;
    p[18] = d->off < 2 ? 4 /* DT_DIR */ : 8 /* DT_REG */;
    __builtin_memcpy(p + 19, name, len);
    used += reclen;
    d->off++;
  }
  return used;
}
