/* The names of mnemo's model, their lookup (which the calls by path of
 * mnemo_paths.c share), and the working directory and listings. The
 * working directory, /tmp/mnemo-replay/cwd, holds the symbolic files A,
 * B, ...; the program may make, link, rename and remove names there, in
 * the directories it makes and in /tmp (everyone's, as natively). Its
 * parent and "/" are root's, and hold nothing else the model knows but
 * /dev/null; the host files `mnemo run --file PATH` names are found by
 * the path as given or as the engine resolved it, read only.
 *
 * A path of symbolic bytes is compared with the names of the working
 * directory as it is, so that each name it can be is a path of its own;
 * one that is none of them is missing, unless the call makes a name or
 * the path has a slash: then it is fixed to one of its values and looked
 * up component by component, as a concrete path always is. A
 * null path is EFAULT, as the kernel's copy of it fails; another bad
 * pointer is the program's memory error. */
#include "mnemo_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define DIR_STAT(mode, ino, owner)                                           \
  {                                                                          \
    .st_mode = S_IFDIR | (mode), .st_ino = (ino), .st_nlink = 2,             \
    .st_uid = (owner), .st_gid = (owner),                                    \
    .st_size = 4096, .st_blocks = 8, .st_blksize = 4096,                     \
    .st_atim = {MNEMO_TIME, 0}, .st_mtim = {MNEMO_TIME, 0},                  \
    .st_ctim = {MNEMO_TIME, 0},                                              \
  }

/* The tree the model knows: "/" (root's) holds /dev/null, /proc/uptime
 * and /tmp (everyone's), where a directory of root's holds the working
 * directory, as a replay's scratch directory is laid out. */
static struct stat root_st = DIR_STAT(0755, MNEMO_INO_ROOT, 0);
static struct stat dev_st = DIR_STAT(0755, MNEMO_INO_DEV, 0);
static struct stat tmp_st = DIR_STAT(01777, MNEMO_INO_TMP, 0);
static struct stat up_st = DIR_STAT(0755, MNEMO_INO_PARENT, 0);
static struct stat work_st = DIR_STAT(0755, MNEMO_INO_WORK, MNEMO_USER);
static struct mnemo_file root_dir = {.path = "/", .st = &root_st};
static struct mnemo_file dev_dir = {.path = "/dev", .st = &dev_st};
static struct mnemo_file tmp_dir = {.path = "/tmp", .st = &tmp_st};
static struct mnemo_file up_dir = {.path = "..", .st = &up_st};
static struct mnemo_file work_dir = {.path = ".", .own = 1, .st = &work_st};

/* /dev/null: a file of no bytes that takes every write, as the
 * character device does (a write past a file's end is dropped). */
static struct stat dev_null_st = {
    .st_mode = S_IFCHR | 0666,
    .st_nlink = 1,
    .st_rdev = (1 << 8) | 3,
    .st_ino = MNEMO_INO_NULL,
    .st_dev = MNEMO_DEV_NULL,
    .st_blksize = 4096,
    .st_atim = {MNEMO_TIME, 0},
    .st_mtim = {MNEMO_TIME, 0},
    .st_ctim = {MNEMO_TIME, 0},
};
static struct mnemo_file dev_null = {.path = "/dev/null", .st = &dev_null_st};

/* /proc/uptime, root's and read only, as the replay's root has it: the
 * seconds since boot and idle that sysinfo's uptime agrees with (uptime
 * reads it, and ends "cannot get system boot time" without it). */
static char uptime_text[] = MNEMO_PROC_UPTIME;
#define UPTIME_LEN (sizeof uptime_text - 1)
static struct stat proc_st = DIR_STAT(0555, MNEMO_INO_PROC, 0);
static struct stat uptime_st = {
    .st_mode = S_IFREG | 0444,
    .st_nlink = 1,
    .st_ino = MNEMO_INO_UPTIME,
    .st_size = UPTIME_LEN,
    .st_blocks = 8,
    .st_blksize = 4096,
    .st_atim = {MNEMO_TIME, 0},
    .st_mtim = {MNEMO_TIME, 0},
    .st_ctim = {MNEMO_TIME, 0},
};
static struct mnemo_file proc_dir = {.path = "/proc", .st = &proc_st};
static struct mnemo_file proc_uptime = {
    .path = "/proc/uptime",
    .st = &uptime_st,
    .contents = uptime_text,
    .size = UPTIME_LEN,
    .stored = UPTIME_LEN,
    .cap = UPTIME_LEN,
};

static struct mnemo_name tree[7] = {
    {(char *)"dev", &root_dir, &dev_dir, &tree[1]},
    {(char *)"null", &dev_dir, &dev_null, &tree[2]},
    {(char *)"proc", &root_dir, &proc_dir, &tree[3]},
    {(char *)"uptime", &proc_dir, &proc_uptime, &tree[4]},
    {(char *)"tmp", &root_dir, &tmp_dir, &tree[5]},
    {(char *)"mnemo-replay", &tmp_dir, &up_dir, &tree[6]},
    {(char *)"cwd", &up_dir, &work_dir, 0},
};

/* The names, the tree's first. */
static struct mnemo_name **names(void) {
  if (!__mnemo_fs.names)
    __mnemo_fs.names = tree;
  return &__mnemo_fs.names;
}

int __mnemo_is_dev_null(const struct mnemo_file *f) { return f == &dev_null; }

int __mnemo_is_work_dir(const struct mnemo_file *f) { return f == &work_dir; }

/* The longest name a directory holds, and the most symbolic links a
 * lookup follows (Linux's). */
#define NAME_MAX_LEN 255
#define LINKS_MAX 40

static struct mnemo_file *cwd(void) {
  return __mnemo_fs.cwd ? __mnemo_fs.cwd : &work_dir;
}


static int same(const char *a, const char *b) {
  while (*a == *b) {
    if (!*a)
      return 1;
    a++, b++;
  }
  return 0;
}

void __mnemo_add_name(struct mnemo_file *dir, char *name, struct mnemo_file *f) {
  struct mnemo_name *n = calloc(1, sizeof *n);
  n->name = name;
  n->dir = dir ? dir : &work_dir;
  n->file = f;
  struct mnemo_name **end = names();
  while (*end)
    end = &(*end)->next;
  *end = n;
}

void __mnemo_drop_name(struct mnemo_name *gone) {
  for (struct mnemo_name **n = names(); *n; n = &(*n)->next) {
    if (*n == gone) {
      *n = gone->next;
      if (!__mnemo_is_dir(gone->file))
        gone->file->st->st_nlink--;
      return;
    }
  }
}

unsigned __mnemo_subdirs(struct mnemo_file *dir) {
  unsigned k = 0;
  for (struct mnemo_name *n = *names(); n; n = n->next)
    k += n->dir == dir && __mnemo_is_dir(n->file);
  return k;
}

int __mnemo_holds_names(struct mnemo_file *dir) {
  for (struct mnemo_name *n = *names(); n; n = n->next)
    if (n->dir == dir)
      return 1;
  return 0;
}

/* The name of a directory of the model in its parent, if it has one. */
static struct mnemo_name *name_of(struct mnemo_file *dir) {
  for (struct mnemo_name *n = *names(); n; n = n->next)
    if (n->file == dir)
      return n;
  return 0;
}

/* A directory's parent: "/" is its own, and so is a removed one. */
struct mnemo_file *__mnemo_parent_of(struct mnemo_file *dir) {
  struct mnemo_name *n = name_of(dir);
  return n ? n->dir : dir;
}


/* Whether the program may remove or replace the name of `f` in `dir`: in
 * a sticky directory (/tmp) only the owner's names (EPERM). */
long __mnemo_may_unname(struct mnemo_file *dir, struct mnemo_file *f) {
  if (!__mnemo_writable_dir(dir))
    return -EACCES;
  return (dir->st->st_mode & S_ISVTX) && !f->own ? -EPERM : 0;
}


char *__mnemo_copy(const char *s, unsigned long len) {
  char *c = malloc(len + 1);
  __builtin_memcpy(c, s, len);
  c[len] = 0;
  return c;
}

int __mnemo_concrete(const char *p) {
  for (;; p++) {
    if (klee_is_symbolic(*p))
      return 0;
    if (!*p)
      return 1;
  }
}

/* `path` fixed to one value it may have on this path (at most PATH_MAX
 * bytes), or 0 if it is longer. The bytes are asked of the solver eight
 * at a time, up to the object's end, and fixed up to the terminator.
 * Through a symbolic pointer (gawk's getopt finds `--pro=FILE`'s FILE
 * at an offset that adds whether the second byte is a dash), whose
 * object's end is not known, they are asked one at a time, as strlen
 * reads them: a word would reach past the terminator and past the
 * object's end, an error the program does not make. */
char *__mnemo_fix(const char *path) {
  char c[PATH_MAX];
  unsigned long n = mnemo_bytes_left(path);
  unsigned long step = n ? 8 : 1;
  if (!n || n > PATH_MAX)
    n = PATH_MAX;
  for (unsigned long i = 0; i < n; i += step) {
    unsigned long k = n - i < step ? n - i : step;
    unsigned long word = 0;
    for (unsigned long j = 0; j < k; j++)
      word |= (unsigned long)(unsigned char)path[i + j] << (8 * j);
    unsigned long value = mnemo_example(word);
    unsigned long used = k;
    for (unsigned long j = 0; j < k; j++) {
      c[i + j] = (char)(value >> (8 * j));
      if (!c[i + j]) {
        used = j + 1;
        break;
      }
    }
    unsigned long mask = used == 8 ? ~0UL : (1UL << (8 * used)) - 1;
    klee_assume((word & mask) == (value & mask));
    if (!c[i + used - 1])
      return __mnemo_copy(c, i + used - 1);
  }
  return 0;
}

/* Whether a symbolic path has a slash before its end, as one condition
 * of its bytes up to its object's end: asking it forks the path once, not
 * once for each length the path may have. Through a symbolic pointer,
 * whose object's end is not known, it may (the path is then fixed and
 * walked). */
static int may_have_slash(const char *p) {
  unsigned long n = mnemo_bytes_left(p);
  if (!n)
    return 1;
  int alive = 1, slash = 0;
  for (unsigned long i = 0; i < n && i < PATH_MAX; i++) {
    char c = p[i];
    if (!klee_is_symbolic(c) && !c)
      break;
    slash |= alive & (c == '/');
    alive &= c != 0;
  }
  return slash;
}

static struct mnemo_name *find_name(struct mnemo_file *dir, const char *c,
                                    unsigned long len) {
  for (struct mnemo_name *n = *names(); n; n = n->next)
    if (n->dir == dir && strncmp(n->name, c, len) == 0 && n->name[len] == 0)
      return n;
  return 0;
}

/* A host file named in the tree by its absolute path, as a replay finds
 * it: the directories on its way are root's, searchable and not writable
 * by the program (/etc), made where the model has none. */
void __mnemo_place_host(struct mnemo_file *f) {
  const char *p = f->path;
  if (p[0] != '/')
    return;
  struct mnemo_file *dir = &root_dir;
  for (;;) {
    while (*p == '/')
      p++;
    unsigned long len = 0;
    while (p[len] && p[len] != '/')
      len++;
    if (!len)
      return;
    const char *q = p + len;
    while (*q == '/')
      q++;
    struct mnemo_name *n = find_name(dir, p, len);
    if (!*q) {
      if (!n)
        __mnemo_add_name(dir, __mnemo_copy(p, len), f);
      return;
    }
    if (!n) {
      char *name = __mnemo_copy(p, len);
      struct mnemo_file *d = __mnemo_new_own(name, S_IFDIR | 0755);
      d->own = 0;
      d->st->st_uid = d->st->st_gid = 0;
      __mnemo_add_name(dir, name, d);
      dir = d;
    } else if (__mnemo_is_dir(n->file)) {
      dir = n->file;
    } else {
      return;
    }
    p = q;
  }
}

static void walk(struct mnemo_file *dir, const char *p, int follow, int depth,
                 struct place *pl);

/* A symbolic link found on the way: what its target leads to, from the
 * directory that holds it. */
static void through_link(struct mnemo_file *link, struct mnemo_file *dir,
                         int depth, struct place *pl) {
  if (depth >= LINKS_MAX) {
    pl->err = -ELOOP;
    return;
  }
  /* A link's target is held with its terminator. */
  walk(dir, link->contents, 1, depth + 1, pl);
}

/* Looks up a concrete path component by component from `dir`. */
static void walk(struct mnemo_file *dir, const char *p, int follow, int depth,
                 struct place *pl) {
  *pl = (struct place){0};
  if (*p == '/') {
    dir = &root_dir;
    while (*p == '/')
      p++;
    if (!*p) {
      pl->file = pl->dir = dir;
      pl->dots = 3;
      return;
    }
  }
  for (;;) {
    while (*p == '/')
      p++;
    if (!*p) {
      pl->file = pl->dir = dir;
      return;
    }
    if (!__mnemo_searchable(dir)) {
      pl->err = -EACCES;
      return;
    }
    unsigned long len = 0;
    while (p[len] && p[len] != '/')
      len++;
    if (len > NAME_MAX_LEN) {
      pl->err = -ENAMETOOLONG;
      return;
    }
    const char *rest = p + len;
    const char *q = rest;
    while (*q == '/')
      q++;
    int final = !*q;
    struct mnemo_file *next = 0;
    struct mnemo_name *n = 0;
    int dots = 0;
    if (len == 1 && p[0] == '.') {
      next = dir, dots = 1;
    } else if (len == 2 && p[0] == '.' && p[1] == '.') {
      next = __mnemo_parent_of(dir), dots = 2;
    } else if ((n = find_name(dir, p, len))) {
      next = n->file;
      __mnemo_settle(next);
    }
    if (!next) {
      pl->err = -ENOENT;
      if (final) {
        pl->dir = dir;
        pl->last = p;
        pl->last_len = len;
        pl->slash = *rest == '/';
      }
      return;
    }
    if (S_ISLNK(next->st->st_mode) && (!final || follow || *rest == '/')) {
      struct place t;
      through_link(next, dir, depth, &t);
      if (final && !*rest) {
        *pl = t;
        return;
      }
      if (!t.file) {
        pl->err = t.err;
        return;
      }
      next = t.file, n = 0, dots = 0;
    }
    if (final) {
      if (*rest == '/' && !__mnemo_is_dir(next)) {
        pl->err = -ENOTDIR;
        return;
      }
      pl->file = next, pl->name = n, pl->dir = dir, pl->dots = dots;
      pl->slash = *rest == '/';
      return;
    }
    if (!__mnemo_is_dir(next)) {
      pl->err = -ENOTDIR;
      return;
    }
    dir = next;
    p = rest;
  }
}

/* The names a symbolic path is compared with as it is: those of the
 * working directory, the host files, /dev/null and the directory's own. */
static int known(const char *path, struct place *pl) {
  struct mnemo_file *here = cwd();
  /* The length is asked once for the one-character names (A, B, ...):
   * a path that is none of them then stays one path, not one for each
   * name it starts with. */
  int one = path[1] == 0;
  /* A name in a working directory that may not be searched is found by no
   * walk; "/" and the host files' absolute paths pass only root's
   * directories, which everyone may search. */
  if (!__mnemo_searchable(here) && path[0] != '/') {
    pl->err = -EACCES;
    return 1;
  }
  for (struct mnemo_name *n = *names(); n; n = n->next) {
    if (n->dir != here || one != (n->name[1] == 0))
      continue;
    if (one ? path[0] == n->name[0] : same(path, n->name)) {
      __mnemo_settle(n->file);
      pl->file = n->file, pl->name = n, pl->dir = here;
      return 1;
    }
  }
  for (struct mnemo_file *f = __mnemo_fs.files; f; f = f->next) {
    if (f->read_only && same(path, f->path)) {
      pl->file = f;
      return 1;
    }
  }
  if (one) {
    if (path[0] == '.')
      pl->file = here, pl->dots = 1;
    else if (path[0] == '/')
      pl->file = &root_dir, pl->dots = 3;
  } else if (same(path, dev_null.path)) {
    pl->file = &dev_null;
  } else if (same(path, "./")) {
    pl->file = here, pl->dots = 1;
  } else if (same(path, "..")) {
    pl->file = __mnemo_parent_of(here), pl->dots = 2;
  }
  return pl->file != 0;
}

void __mnemo_lookup(int dirfd, const char *path, int follow, int making,
                   struct place *pl) {
  *pl = (struct place){0};
  if (!path) {
    pl->err = -EFAULT;
    return;
  }
  /* A walk from / may pass a host file's directories. */
  __mnemo_load_hosts();
  struct mnemo_file *start = cwd();
  if (dirfd != AT_FDCWD && path[0] != '/') {
    struct mnemo_desc *d = dirfd >= 0 && dirfd < MNEMO_FDS ? __mnemo_fs.fds[dirfd].desc : 0;
    if (!d) {
      pl->err = -EBADF;
      return;
    }
    if (d->kind != MNEMO_DIR) {
      pl->err = -ENOTDIR;
      return;
    }
    start = d->file;
  }
  if (!path[0]) {
    pl->err = -ENOENT;
    return;
  }
  if (start == cwd() && known(path, pl)) {
    if (pl->file && follow && S_ISLNK(pl->file->st->st_mode))
      through_link(pl->file, pl->dir, 0, pl);
    return;
  }
  if (!__mnemo_concrete(path)) {
    /* A name of the working directory that is none of its names is
     * missing; a path with a slash may still lead somewhere ("../",
     * "A/", a directory made). */
    if (!making && start == cwd() && !may_have_slash(path)) {
      pl->err = -ENOENT;
      return;
    }
    path = __mnemo_fix(path);
    if (!path) {
      pl->err = -ENAMETOOLONG;
      return;
    }
  }
  walk(start, path, follow, 0, pl);
}

long __mnemo_find(int dirfd, const char *path, int nofollow, struct mnemo_file **f) {
  struct place pl;
  __mnemo_lookup(dirfd, path, !nofollow, 0, &pl);
  *f = pl.file;
  return pl.file ? 0 : pl.err;
}

long __mnemo_chdir(const char *path) {
  struct place pl;
  __mnemo_lookup(AT_FDCWD, path, 1, 0, &pl);
  if (!pl.file)
    return pl.err;
  if (!__mnemo_is_dir(pl.file))
    return -ENOTDIR;
  if (!__mnemo_searchable(pl.file))
    return -EACCES;
  __mnemo_fs.cwd = pl.file;
  return 0;
}

long __mnemo_fchdir(struct mnemo_desc *d) {
  if (d->kind != MNEMO_DIR)
    return -ENOTDIR;
  if (!__mnemo_searchable(d->file))
    return -EACCES;
  __mnemo_fs.cwd = d->file;
  return 0;
}

/* The working directory's path, by the names of the directories on the
 * way from "/" (ENOENT once one of them is removed). */
long __mnemo_getcwd(char *buf, unsigned long size) {
  char path[PATH_MAX];
  unsigned long at = PATH_MAX - 1;
  path[at] = 0;
  for (struct mnemo_file *d = cwd(); d != &root_dir;) {
    struct mnemo_name *n = name_of(d);
    if (!n)
      return -ENOENT;
    unsigned long len = strlen(n->name);
    if (len + 1 > at)
      return -ENAMETOOLONG;
    at -= len;
    __builtin_memcpy(path + at, n->name, len);
    path[--at] = '/';
    d = n->dir;
  }
  if (at == PATH_MAX - 1)
    path[--at] = '/';
  unsigned long need = PATH_MAX - at;
  if (size < need)
    return -ERANGE;
  __builtin_memcpy(buf, path + at, need);
  return need;
}

/* One entry of a directory: ".", "..", then its names in the order of
 * their bytes. A file system lists names in an order of its own (ext4 by
 * a hash, tmpfs newest first); the model's is one a native replay can
 * give too: the replay library lists each directory sorted the same way
 * (runtime/replay/dirs.c), so that `find` or `du` print what the engine
 * predicted. The i-th name is the one with i - 2 names before it: a walk
 * of the names for each, rather than a sorted copy, which `--compose`
 * tried to summarise over a symbolic list of names at every run's start
 * until its clock's backstop (20 s of tr's run). */
static int entry(struct mnemo_file *dir, unsigned long i, const char **name,
                 struct mnemo_file **f) {
  if (i < 2) {
    *name = i ? ".." : ".";
    *f = i ? __mnemo_parent_of(dir) : dir;
    return 1;
  }
  for (struct mnemo_name *n = *names(); n; n = n->next) {
    if (n->dir != dir)
      continue;
    unsigned long k = 2;
    for (struct mnemo_name *m = *names(); m && k <= i; m = m->next)
      k += m->dir == dir && strcmp(m->name, n->name) < 0;
    if (k == i) {
      *name = n->name;
      *f = n->file;
      return 1;
    }
  }
  return 0;
}

long __mnemo_getdents(struct mnemo_desc *d, char *buf, unsigned long n) {
  unsigned long used = 0;
  const char *name;
  struct mnemo_file *f;
  while (entry(d->file, d->off, &name, &f)) {
    __mnemo_settle(f);
    unsigned long len = strlen(name);
    unsigned long reclen = (19 + len + 1 + 7) & ~7UL;
    if (used + reclen > n)
      return used ? (long)used : -EINVAL;
    char *p = buf + used;
    memset(p, 0, reclen);
    *(unsigned long *)p = f->st->st_ino & 0x7FFFFFFF;
    *(long *)(p + 8) = d->off + 1;
    *(unsigned short *)(p + 16) = reclen;
    /* The type of an entry is its mode's type, as DT_* numbers it. */
    p[18] = (f->st->st_mode & S_IFMT) >> 12;
    __builtin_memcpy(p + 19, name, len);
    used += reclen;
    d->off++;
  }
  return used;
}
