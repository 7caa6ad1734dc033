/* The files of mnemo's model and what happens to their bytes and status:
 * the symbolic files A, B, ... (named by exactly that, as in KLEE), stdin
 * and stdout, the files and directories the program makes (the calls
 * that name them by path are in mnemo_names.c). A replay runs the
 * program as a user who owns the symbolic files, the working directory
 * and what the program makes, and nothing else: a change to another
 * file fails as it would for that user (EPERM), except for the host
 * files, which the model keeps read only (EROFS). */
#include "mnemo_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

static const struct timespec clock_now = {MNEMO_TIME, 0};

/* Every time of a status the model makes: the clock's. */
static void at_clock_time(struct stat *st) {
  st->st_atim = st->st_mtim = st->st_ctim = clock_now;
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
    /* A replay recreates A, B, ... as new regular files or empty
     * directories, as the status's type says, with its permission bits,
     * and nothing else of it: their device, inode, links, owner and times
     * are the file system's. Left symbolic here they would lead to paths
     * no replay can take (a hard link, a file in the future) and make
     * every hash of an inode (du's and fts's sets of visited files) a
     * question for the solver, so they are what a new file in the working
     * directory has. The type and permission bits wait for
     * __mnemo_settle. */
    klee_assume(S_ISREG(f->st->st_mode) | S_ISDIR(f->st->st_mode));
    f->unsettled = 1;
    f->own = 1;
    f->st->st_dev = 0;
    f->st->st_ino = MNEMO_INO_SYM_FILES + __mnemo_fs.sym_files;
    f->st->st_nlink = 1;
    f->st->st_uid = f->st->st_gid = MNEMO_USER;
    f->st->st_rdev = 0;
    f->st->st_blksize = 4096;
    at_clock_time(f->st);
    add_file(f);
    __mnemo_add_name(0, (char *)path, f);
    __mnemo_fs.sym_files++;
  } else {
    /* stdin's and stdout's statuses keep KLEE's constraints: an inode
     * number that readdir does not skip, a block size a buffer can take,
     * and not a directory. They are on another device than the model's
     * files (a replay pipes stdin in), so never the same file as one the
     * program opens or makes ("xaa would overwrite input"). */
    klee_assume((f->st->st_ino & 0x7FFFFFFF) != 0);
    klee_assume(f->st->st_dev != 0);
    klee_assume(!S_ISDIR(f->st->st_mode));
    klee_assume((f->st->st_blksize & ~0xFFFF) == 0);
  }
  return f;
}

/* A directory takes a block and has two links, as a new one of ext4 does. */
static void as_new_dir(struct stat *st) {
  st->st_nlink = 2;
  st->st_size = 4096;
  st->st_blocks = 8;
}

static struct mnemo_file *new_own(const char *path, unsigned mode, ino_t ino) {
  struct mnemo_file *f = calloc(1, sizeof *f);
  struct stat *st = calloc(1, sizeof *st);
  f->path = path;
  f->own = 1;
  f->st = st;
  st->st_mode = mode;
  st->st_uid = st->st_gid = MNEMO_USER;
  st->st_ino = ino;
  st->st_nlink = 1;
  st->st_blksize = 4096;
  at_clock_time(st);
  if (S_ISDIR(mode))
    as_new_dir(st);
  return f;
}

struct mnemo_file *__mnemo_new_own(const char *path, unsigned mode) {
  return new_own(path, mode, MNEMO_INO_MADE + __mnemo_fs.next_ino++);
}

struct mnemo_file *__mnemo_new_pipe(void) {
  return new_own("pipe", S_IFIFO | 0600, MNEMO_INO_PIPES + __mnemo_fs.pipes++);
}

/* Orders paths as a walk of the tree by names meets them: name by name,
 * a slash before any other byte. */
static int walk_order(const char *a, const char *b) {
  for (;; a++, b++) {
    int x = *a == '/' ? 0 : *a ? (unsigned char)*a : -1;
    int y = *b == '/' ? 0 : *b ? (unsigned char)*b : -1;
    if (x != y || x < 0)
      return x - y;
  }
}

/* The host files, asked of the engine once per path that looks for one.
 * They are placed, and numbered as the model numbers what it makes (each
 * after the directories made for it), in the order a walk of the tree by
 * names meets them, as a replay numbers the copies it made of them
 * (replay/status.c); the engine gives each the host's inode number, which
 * says which names are one file (the path as given and as resolved). */
void __mnemo_load_hosts(void) {
  if (__mnemo_fs.hosts_loaded)
    return;
  __mnemo_fs.hosts_loaded = 1;
  struct mnemo_file **loaded = NULL;
  long count = 0;
  for (;; count++) {
    char *path, *contents;
    struct stat *st = malloc(sizeof *st);
    long size = __mnemo_host_file(count, &path, &contents, st);
    if (size < 0) {
      free(st);
      break;
    }
    struct mnemo_file *f = calloc(1, sizeof *f);
    f->path = path;
    f->read_only = 1;
    f->size = f->stored = f->cap = size;
    f->contents = contents;
    f->st = st;
    add_file(f);
    loaded = realloc(loaded, (count + 1) * sizeof *loaded);
    loaded[count] = f;
  }
  /* By insertion, as there are few: qsort would be linked into every
   * program. */
  for (long i = 1; i < count; i++)
    for (long j = i; j > 0 && walk_order(loaded[j - 1]->path, loaded[j]->path) > 0; j--) {
      struct mnemo_file *t = loaded[j];
      loaded[j] = loaded[j - 1];
      loaded[j - 1] = t;
    }
  ino_t *host_ino = malloc((count ? count : 1) * sizeof *host_ino);
  for (long i = 0; i < count; i++) {
    struct mnemo_file *f = loaded[i];
    host_ino[i] = f->st->st_ino;
    __mnemo_place_host(f);
    long same = 0;
    while (same < i && host_ino[same] != host_ino[i])
      same++;
    f->st->st_ino = same < i ? loaded[same]->st->st_ino : MNEMO_INO_MADE + __mnemo_fs.next_ino++;
  }
  free(host_ino);
  free(loaded);
}

/* The status of what is not a file of the model: the standard
 * descriptors without a symbolic file (pipes, as when a harness runs the
 * program). */
static void pipe_stat(struct stat *st, unsigned long ino) {
  memset(st, 0, sizeof *st);
  st->st_mode = S_IFIFO | 0600;
  st->st_ino = ino;
  st->st_nlink = 1;
  st->st_blksize = 4096;
  at_clock_time(st);
}

/* A symbolic file is a regular file or an empty directory, as KLEE's
 * symbolic status allows and a replay makes it; which one is asked when
 * the file is first looked up or listed, so that the many paths that never
 * name it do not fork on it. The replay gives it the status's permission
 * bits, the default ones where they are all 0 (0644, 0755 for a
 * directory), and no set-id or sticky bit; its owner may always read and
 * write it, and search it if it is a directory, as root may whatever the
 * bits, so that a replay as root takes the model's path where the
 * program opens its input. src/testgen/posix.rs makes the same bits. */
void __mnemo_settle(struct mnemo_file *f) {
  if (!f->unsettled)
    return;
  f->unsettled = 0;
  /* Arithmetic, not branches, past the type's: nothing else forks. */
  unsigned perm = f->st->st_mode & 0777;
  if (S_ISDIR(f->st->st_mode)) {
    f->st->st_mode = S_IFDIR | 0700 | perm | (perm == 0) * 0755;
    f->size = f->stored = 0;
    as_new_dir(f->st);
  } else {
    f->st->st_mode = S_IFREG | 0600 | perm | (perm == 0) * 0644;
  }
}

void __mnemo_stat_file(struct mnemo_file *f, struct stat *st) {
  __builtin_memcpy(st, f->st, sizeof *st);
  if (S_ISDIR(st->st_mode))
    st->st_nlink = 2 + __mnemo_subdirs(f);
}

void __mnemo_stat_of(struct mnemo_desc *d, struct stat *st) {
  if (d->file)
    __mnemo_stat_file(d->file, st);
  else
    pipe_stat(st, 2 + d->stream);
}

/* The blocks a file of `stored` bytes takes on ext4: none when empty,
 * else whole 4 KiB blocks (the sparse part past `stored` takes none). */
static void set_size(struct mnemo_file *f, unsigned long size) {
  f->size = size;
  f->st->st_size = size;
  f->st->st_blocks = (f->stored + 4095) / 4096 * 8;
  f->st->st_mtim = f->st->st_ctim = clock_now;
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

/* ftruncate's part, on a regular file of the program's own: the size is
 * fixed to one value of the path's. */
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

/* truncate: a directory is EISDIR, anything but a regular file EINVAL,
 * before the permission to write it. */
long __mnemo_truncate(struct mnemo_file *f, long size) {
  if (S_ISDIR(f->st->st_mode))
    return -EISDIR;
  if (!S_ISREG(f->st->st_mode))
    return -EINVAL;
  if (f->read_only)
    return -EROFS;
  return f->own ? __mnemo_resize(f, size) : -EACCES;
}

/* What a change to the status of a file that is not the program's own
 * gives. */
static long not_own(struct mnemo_file *f) { return f->read_only ? -EROFS : -EPERM; }

long __mnemo_chmod(struct mnemo_file *f, unsigned mode) {
  if (!f->own)
    return not_own(f);
  f->st->st_mode = (f->st->st_mode & S_IFMT) | (mode & 07777);
  f->st->st_ctim = clock_now;
  return 0;
}

/* Anyone may "change" the owner and group of anything to what they are
 * (-1, -1): the kernel asks no permission for that. A user who is not
 * root may give nothing away: the owner of a file may name only itself
 * and its own group. As for any chown by such a user, a file that is not
 * a directory loses its set-user-id bit, and its set-group-id bit where
 * the group may execute it. */
long __mnemo_chown(struct mnemo_file *f, long uid, long gid) {
  int keep_uid = (unsigned)uid == (unsigned)-1 || (f->own && (unsigned)uid == MNEMO_USER);
  int keep_gid = (unsigned)gid == (unsigned)-1 || (f->own && (unsigned)gid == MNEMO_USER);
  if (!keep_uid || !keep_gid)
    return not_own(f);
  if (f->own) {
    mode_t m = f->st->st_mode;
    if (!S_ISDIR(m))
      m &= ~(S_ISUID | ((m & S_IXGRP) ? S_ISGID : 0));
    f->st->st_mode = m;
    f->st->st_ctim = clock_now;
  }
  return 0;
}

/* utimensat's times: none is the clock's for both; each may be UTIME_NOW
 * or UTIME_OMIT. Setting both to now needs only the permission to write,
 * which everyone has on /dev/null and /tmp; other times need the owner. */
long __mnemo_utimens(struct mnemo_file *f, const struct timespec *times) {
  struct timespec *to[2] = {&f->st->st_atim, &f->st->st_mtim};
  for (int i = 0; times && i < 2; i++) {
    long ns = times[i].tv_nsec;
    if (ns != UTIME_NOW && ns != UTIME_OMIT && (ns < 0 || ns > 999999999))
      return -EINVAL;
  }
  int now = !times || (times[0].tv_nsec == UTIME_NOW && times[1].tv_nsec == UTIME_NOW);
  if (!f->own) {
    if (f->read_only)
      return -EROFS;
    if (!now)
      return -EPERM;
    return (f->st->st_mode & 0002) ? 0 : -EACCES;
  }
  for (int i = 0; i < 2; i++) {
    if (!times || times[i].tv_nsec == UTIME_NOW)
      *to[i] = clock_now;
    else if (times[i].tv_nsec != UTIME_OMIT)
      *to[i] = times[i];
  }
  f->st->st_ctim = clock_now;
  return 0;
}
