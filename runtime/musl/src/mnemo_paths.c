/* The calls that open, inspect, make, link, rename and remove files by
 * path, on the lookup of mnemo_names.c: each makes the kernel's checks,
 * in the kernel's order, for the user a replay runs as. */
#include "mnemo_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* The checks before a name is made where `pl` leads: it exists (EEXIST),
 * the way there fails, a name with a final slash that is not a
 * directory's (ENOENT), or the directory may not be written (EACCES). */
static long makeable(struct place *pl, int dir) {
  if (pl->file)
    return -EEXIST;
  if (!pl->last)
    return pl->err;
  if (pl->slash && !dir)
    return -ENOENT;
  return __mnemo_writable_dir(pl->dir) ? 0 : -EACCES;
}

static char *new_name(struct place *pl) { return __mnemo_copy(pl->last, pl->last_len); }

static struct mnemo_file *make_in(struct place *pl, unsigned mode) {
  char *name = new_name(pl);
  struct mnemo_file *f = __mnemo_new_own(name, mode);
  __mnemo_add_name(pl->dir, name, f);
  return f;
}

static long new_desc(enum mnemo_kind kind, struct mnemo_file *f, int flags) {
  struct mnemo_desc *d = calloc(1, sizeof *d);
  d->kind = kind;
  d->flags = flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
  d->file = f;
  d->heap = 1;
  long fd = __mnemo_dup_from(d, 0, (flags & O_CLOEXEC) != 0);
  if (fd < 0)
    free(d);
  return fd;
}

long __mnemo_open(int dirfd, const char *path, int flags, unsigned mode) {
  /* O_PATH (musl's O_SEARCH) asks for no access to the file: Linux keeps
   * only these flags, and opens whatever the name is without checking
   * permissions, following a last symbolic link or waiting on a FIFO. */
  if (flags & O_PATH)
    flags &= O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int creating = (flags & O_CREAT) != 0;
  int exclusive = creating && (flags & O_EXCL);
  struct place pl;
  __mnemo_lookup(dirfd, path, !(flags & O_NOFOLLOW) && !exclusive, creating, &pl);
  struct mnemo_file *f = pl.file;
  if (!f) {
    if (!creating || !pl.last)
      return pl.err;
    if (pl.slash)
      return -EISDIR;
    if (!__mnemo_writable_dir(pl.dir))
      return -EACCES;
    f = make_in(&pl, S_IFREG | (mode & 07777 & ~__mnemo_fs.umask));
    return new_desc(MNEMO_FILE, f, flags);
  }
  if (exclusive)
    return -EEXIST;
  unsigned type = f->st->st_mode & S_IFMT;
  int writing = (flags & 3) != O_RDONLY || (flags & O_TRUNC);
  if (type == S_IFDIR && (writing || creating))
    return -EISDIR;
  if (type != S_IFDIR && (flags & O_DIRECTORY))
    return -ENOTDIR;
  if (flags & O_PATH)
    return new_desc(type == S_IFDIR ? MNEMO_DIR : MNEMO_FILE, f, flags);
  if (type == S_IFLNK)
    return -ELOOP;
  if (f->read_only && writing)
    return -EROFS;
  unsigned wanted = ((flags & 3) != O_WRONLY ? R_OK : 0) | (writing ? W_OK : 0);
  if (wanted & ~__mnemo_granted(f))
    return -EACCES;
  if (type == S_IFIFO || type == S_IFSOCK) {
    if (type == S_IFSOCK)
      return -ENXIO;
    /* Nobody else opens the other end: a reader that does not wait
     * reads its end, a writer that does not wait has no reader, and an
     * open that waits waits for ever. */
    if (flags & O_NONBLOCK)
      return (flags & 3) == O_RDONLY ? new_desc(MNEMO_EMPTY_IN, f, flags) : -ENXIO;
    for (;;) {
      long r = __mnemo_wait(1);
      if (r)
        return r;
    }
  }
  if (type == S_IFREG && (flags & O_TRUNC) && f->own)
    __mnemo_resize(f, 0);
  return new_desc(type == S_IFDIR ? MNEMO_DIR : MNEMO_FILE, f, flags);
}

long __mnemo_stat_path(int dirfd, const char *path, struct stat *st, int flags) {
  if (!path)
    return -EFAULT;
  if ((flags & AT_EMPTY_PATH) && path[0] == 0) {
    if (dirfd < 0 || dirfd >= MNEMO_FDS || !__mnemo_fs.fds[dirfd].desc)
      return -EBADF;
    __mnemo_stat_of(__mnemo_fs.fds[dirfd].desc, st);
    return 0;
  }
  struct place pl;
  __mnemo_lookup(dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW), 0, &pl);
  if (!pl.file)
    return pl.err;
  __mnemo_stat_file(pl.file, st);
  return 0;
}

long __mnemo_access(int dirfd, const char *path, int mode) {
  struct place pl;
  __mnemo_lookup(dirfd, path, 1, 0, &pl);
  struct mnemo_file *f = pl.file;
  if (!f)
    return pl.err;
  if ((mode & W_OK) && f->read_only)
    return -EROFS;
  return (mode & (R_OK | W_OK | X_OK)) & ~__mnemo_granted(f) ? -EACCES : 0;
}

long __mnemo_readlink(int dirfd, const char *path, char *buf, long size) {
  struct place pl;
  __mnemo_lookup(dirfd, path, 0, 0, &pl);
  if (!pl.file)
    return pl.err;
  if (!S_ISLNK(pl.file->st->st_mode) || size <= 0)
    return -EINVAL;
  unsigned long n = pl.file->stored < (unsigned long)size ? pl.file->stored : (unsigned long)size;
  __builtin_memcpy(buf, pl.file->contents, n);
  return n;
}

/* mkdir (a mode with S_IFDIR) and mknod: a device needs a privilege the
 * program lacks (EPERM, after the name's own errors). */
long __mnemo_make(int dirfd, const char *path, unsigned mode, unsigned dev) {
  (void)dev;
  unsigned type = mode & S_IFMT;
  if (!type)
    type = S_IFREG;
  if (type != S_IFREG && type != S_IFDIR && type != S_IFIFO && type != S_IFSOCK &&
      type != S_IFCHR && type != S_IFBLK)
    return -EINVAL;
  struct place pl;
  __mnemo_lookup(dirfd, path, 0, 1, &pl);
  long bad = makeable(&pl, type == S_IFDIR);
  if (bad)
    return bad;
  if (type == S_IFCHR || type == S_IFBLK)
    return -EPERM;
  unsigned perm = mode & 07777 & ~__mnemo_fs.umask;
  /* Linux's mkdir keeps no set-id bit it is asked for (mkdir -m =s then
   * needs a chmod), and a new directory takes the set-group-id bit of
   * its parent's. */
  if (type == S_IFDIR)
    perm = (perm & 01777) | (pl.dir->st->st_mode & S_ISGID);
  make_in(&pl, type | perm);
  return 0;
}

long __mnemo_symlink(const char *target, int dirfd, const char *path) {
  if (!target)
    return -EFAULT;
  if (!target[0])
    return -ENOENT;
  struct place pl;
  __mnemo_lookup(dirfd, path, 0, 1, &pl);
  long bad = makeable(&pl, 0);
  if (bad)
    return bad;
  char *to = __mnemo_concrete(target) ? __mnemo_copy(target, strlen(target)) : __mnemo_fix(target);
  if (!to)
    return -ENAMETOOLONG;
  struct mnemo_file *f = make_in(&pl, S_IFLNK | 0777);
  f->contents = to;
  f->size = f->stored = f->cap = strlen(to);
  f->st->st_size = f->size;
  return 0;
}

/* A hard link: not of a directory (EPERM), nor of a file outside the
 * model's file system (EXDEV). */
long __mnemo_link(int olddirfd, const char *old, int newdirfd, const char *new,
                  int flags) {
  struct place from, to;
  __mnemo_lookup(olddirfd, old, (flags & AT_SYMLINK_FOLLOW) != 0, 0, &from);
  if (!from.file)
    return from.err;
  __mnemo_lookup(newdirfd, new, 0, 1, &to);
  long bad = makeable(&to, 0);
  if (bad)
    return bad;
  if (!from.file->own || __mnemo_is_work_dir(from.file))
    return from.file->read_only ? -EROFS : -EXDEV;
  if (__mnemo_is_dir(from.file))
    return -EPERM;
  __mnemo_add_name(to.dir, new_name(&to), from.file);
  from.file->st->st_nlink++;
  return 0;
}

/* Whether `dir` is `top` or inside it. */
static int within(struct mnemo_file *dir, struct mnemo_file *top) {
  for (int i = 0; i < 256; i++) {
    if (dir == top)
      return 1;
    /* "/" is its own parent. */
    struct mnemo_file *up = __mnemo_parent_of(dir);
    if (up == dir)
      return 0;
    dir = up;
  }
  return 0;
}

long __mnemo_rename(int olddirfd, const char *old, int newdirfd, const char *new,
                    unsigned flags) {
  const unsigned noreplace = 1, exchange = 2;
  if ((flags & ~(noreplace | exchange)) || flags == (noreplace | exchange))
    return -EINVAL;
  struct place from, to;
  __mnemo_lookup(olddirfd, old, 0, 0, &from);
  if (!from.file)
    return from.err;
  __mnemo_lookup(newdirfd, new, 0, 1, &to);
  if (!to.file && !to.last)
    return to.err;
  if (from.dots || to.dots)
    return -EBUSY;
  if (!from.name || (to.file && !to.name))
    return from.file->read_only ? -EROFS : -EXDEV;
  if (to.file && (flags & noreplace))
    return -EEXIST;
  if (!to.file && (flags & exchange))
    return -ENOENT;
  if (!__mnemo_writable_dir(from.dir) || !__mnemo_writable_dir(to.dir))
    return -EACCES;
  long bad = __mnemo_may_unname(from.dir, from.file);
  if (!bad && to.file)
    bad = __mnemo_may_unname(to.dir, to.file);
  if (bad)
    return bad;
  if (to.file == from.file)
    return 0;
  struct mnemo_file *f = from.file;
  if (__mnemo_is_dir(f) && within(to.dir, f))
    return -EINVAL;
  if (flags & exchange) {
    if (__mnemo_is_dir(to.file) && within(from.dir, to.file))
      return -EINVAL;
    to.name->file = f;
    from.name->file = to.file;
    return 0;
  }
  if (to.file) {
    if (__mnemo_is_dir(f) && !__mnemo_is_dir(to.file))
      return -ENOTDIR;
    if (!__mnemo_is_dir(f) && __mnemo_is_dir(to.file))
      return -EISDIR;
    if (__mnemo_is_dir(to.file) && __mnemo_holds_names(to.file))
      return -ENOTEMPTY;
    __mnemo_drop_name(to.name);
    from.name->name = to.name->name;
  } else {
    if ((to.slash || from.slash) && !__mnemo_is_dir(f))
      return -ENOTDIR;
    from.name->name = new_name(&to);
  }
  from.name->dir = to.dir;
  f->st->st_ctim = (struct timespec){MNEMO_TIME, 0};
  return 0;
}

/* unlink (dir = 0) and rmdir (dir = 1), with the kernel's checks: a
 * directory cannot be unlinked; rmdir of a file is ENOTDIR, and of a
 * directory by a name whose last component is "." EINVAL, ".." ENOTEMPTY,
 * of "/" EBUSY. */
long __mnemo_remove(int dirfd, const char *path, int dir) {
  struct place pl;
  __mnemo_lookup(dirfd, path, 0, 0, &pl);
  struct mnemo_file *f = pl.file;
  if (!f)
    return pl.err;
  if (!dir && __mnemo_is_dir(f))
    return -EISDIR;
  if (dir) {
    if (!__mnemo_is_dir(f))
      return -ENOTDIR;
    if (pl.dots)
      return pl.dots == 1 ? -EINVAL : pl.dots == 2 ? -ENOTEMPTY : -EBUSY;
  }
  if (!pl.name)
    return f->read_only ? -EROFS : -EACCES;
  if (dir && __mnemo_holds_names(f))
    return -ENOTEMPTY;
  long bad = __mnemo_may_unname(pl.dir, f);
  if (bad)
    return bad;
  __mnemo_drop_name(pl.name);
  return 0;
}

/* The bytes of a file the kernel reads to tell its format (its
 * BINPRM_BUF_SIZE), and how many times an interpreter may itself be a
 * script before the kernel gives up (ELOOP). */
#define EXEC_HEAD 256
#define EXEC_DEPTH 5

static int spacetab(char c) { return c == ' ' || c == '\t'; }

/* The first byte from `p` up to `last` (included) that is not a space or
 * a tab, and the first that is one or a NUL, as binfmt_script looks. */
static const char *non_spacetab(const char *p, const char *last) {
  for (; p <= last; p++)
    if (!spacetab(*p))
      return p;
  return 0;
}

static const char *terminator(const char *p, const char *last) {
  for (; p <= last; p++)
    if (spacetab(*p) || !*p)
      return p;
  return 0;
}

/* The interpreter a script's first line names, as Linux's binfmt_script
 * reads it from `head` (the file's first bytes, zeros after its end), or
 * 0 if the line names none (then the file is no script: ENOEXEC). */
static char *interpreter(const char *head) {
  const char *last = head + EXEC_HEAD - 1;
  /* The line's end: a newline before the first NUL. */
  const char *end = 0;
  for (const char *p = head; p <= last && *p && !end; p++)
    if (*p == '\n')
      end = p;
  if (!end) {
    /* A name that may go on past the head is taken as cut short. */
    end = non_spacetab(head + 2, last);
    if (!end || !terminator(end, last))
      return 0;
    end = last;
  }
  while (spacetab(end[-1]))
    end--;
  const char *name = non_spacetab(head + 2, end);
  if (!name || name == end)
    return 0;
  const char *stop = terminator(name, end);
  return __mnemo_copy(name, (stop ? stop : end) - name);
}

/* execve as the kernel answers it in the model, where nothing is a
 * program that could run: the lookup's error, EACCES for what is not a
 * regular file its user may execute, a script's interpreter looked for in
 * turn, and ENOEXEC for the rest (no file of the model is a whole ELF
 * program, and musl's execvp tries no shell). */
long __mnemo_exec(const char *path) {
  for (int depth = 0;; depth++) {
    if (depth > EXEC_DEPTH)
      return -ELOOP;
    /* The kernel looks an interpreter's name up itself, where an empty
     * one is no error but the working directory: no regular file. */
    if (depth && !path[0])
      return -EACCES;
    struct place pl;
    __mnemo_lookup(AT_FDCWD, path, 1, 0, &pl);
    struct mnemo_file *f = pl.file;
    if (!f)
      return pl.err;
    if (!S_ISREG(f->st->st_mode) || !(__mnemo_granted(f) & X_OK))
      return -EACCES;
    char head[EXEC_HEAD] = {0};
    __mnemo_read_at(f, head, EXEC_HEAD, 0);
    if (head[0] != '#' || head[1] != '!')
      return -ENOEXEC;
    path = interpreter(head);
    if (!path)
      return -ENOEXEC;
  }
}
