/*
 * The model's status of a file in a native run: the device and inode
 * numbers the engine gives its files, and its clock's time for every
 * time the replay stamped, so that a test of a program that prints them
 * (`stat`'s "Device:" and "Inode:" lines, `ls -i`, `ls -lc`, `find -ls`)
 * or sorts by them (`ls -t`) prints what the engine predicted.
 *
 * A file is known by its real device and inode. The model's fixed tree
 * (/, /dev, /dev/null, /proc, /proc/uptime, /tmp), the working directory
 * and its parent, and the symbolic files A, B, ... in the working
 * directory take their model numbers as the program starts (before it
 * makes anything). In the model's root (the working directory at the
 * model's path), the host files and the directories the replay made for
 * them (/etc) take the first of the numbers of what the model makes, in
 * the order a walk of the tree by names meets them, as the model numbers
 * them. Any other file, directory or symbolic link takes the next of those
 * numbers the first time the program looks at it: the model numbers what
 * it makes in the order it makes it, so the two agree where the program
 * looks at what it made in that order (a pipe keeps the kernel's number:
 * the model numbers pipes apart).
 *
 * A time the kernel stamped since the replay began (a new file, a read,
 * a change) is the model's clock's, which does not move; one the program
 * set (`touch -d`, `cp -p`) stays. Each time of the rest of the fixed
 * tree, which the program cannot change, is the clock's, and each of a
 * host file its modification time, as the model has them.
 *
 * Not thread-safe: a program's threads (sort's) do not look at files.
 *
 * Defined in the program, these take the place of the C library's stat,
 * lstat, fstat and fstatat for the program's own calls (and, linked
 * statically with musl, for the library's own, which all go through
 * fstatat); readdir's inode numbers (dirs.c) are mapped the same way.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mnemo/model.h"
#include "status.h"

/* The kernel's status is the C library's on x86-64 (glibc's and musl's). */
_Static_assert(sizeof(struct stat) == 144, "the kernel's struct stat");

/* Whose times a file has in the model. */
enum kind {
  /* The fixed tree's (but the working directory, the program's) and the
   * host files' directories: the clock's. */
  FIXED,
  /* The test's and what the program makes: the clock's where the kernel
   * stamped them during the replay. */
  OWN,
  /* A host file: its modification time, which the replay gave its copy. */
  HOST,
  /* The machine's own, numbers and times: the standard streams' files,
   * whose statuses the model takes from the test. */
  REAL,
};

/* One file the program may look at: its real identity, and the model's. */
struct identity {
  dev_t dev;
  ino_t ino;
  dev_t model_dev;
  ino_t model_ino;
  enum kind kind;
};

/* Enough for any test's files; past it a file keeps its real numbers. */
#define MAX_KNOWN 4096
static struct identity known[MAX_KNOWN];
static int count;
static int ready;
static ino_t next_made = MNEMO_INO_MADE;
/* The real time the replay began, less a margin for the files the replay
 * made just before the program started. */
static time_t began;

static long raw_status(int fd, const char *path, struct stat *st, int flag) {
  return syscall(SYS_newfstatat, fd, path, st, flag);
}

static struct identity *find(dev_t dev, ino_t ino) {
  for (int i = 0; i < count; i++)
    if (known[i].dev == dev && known[i].ino == ino)
      return &known[i];
  return NULL;
}

static struct identity *add(dev_t dev, ino_t ino, dev_t model_dev, ino_t model_ino,
                            enum kind kind) {
  if (count == MAX_KNOWN)
    return NULL;
  known[count] = (struct identity){dev, ino, model_dev, model_ino, kind};
  return &known[count++];
}

/* `path` (relative to `at`) as the model's file `ino` on device `dev`,
 * unless it is already known (a scratch directory's parent may be the
 * machine's /tmp). Whether the path is there. */
static int add_path(int at, const char *path, dev_t dev, ino_t ino, enum kind kind) {
  struct stat st;
  if (raw_status(at, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return 0;
  if (!find(st.st_dev, st.st_ino))
    add(st.st_dev, st.st_ino, dev, ino, kind);
  return 1;
}

static int by_bytes(const void *a, const void *b) { return strcmp(a, b); }

/* The host files under `dir` of the model's root and the directories the
 * replay made for them, numbered as the model numbers what it makes, by
 * name, each directory before what it holds (musl/src/mnemo_files.c's
 * __mnemo_load_hosts). `skip_fixed` leaves out the model's own tree
 * (/dev, /proc, /tmp). */
static void number_hosts(const char *dir, int skip_fixed) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  char buf[4096];
  char names[64][256];
  int n = 0;
  long got;
  while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
    for (long at = 0; at < got;) {
      /* getdents64's entries: glibc's struct dirent on x86-64. */
      struct dirent *e = (struct dirent *)(buf + at);
      at += e->d_reclen;
      const char *name = e->d_name;
      if (!strcmp(name, ".") || !strcmp(name, "..") || n == 64 ||
          strlen(name) >= sizeof names[0])
        continue;
      if (skip_fixed && (!strcmp(name, "dev") || !strcmp(name, "proc") || !strcmp(name, "tmp")))
        continue;
      strcpy(names[n++], name);
    }
  }
  qsort(names, (size_t)n, sizeof names[0], by_bytes);
  for (int i = 0; i < n; i++) {
    struct stat st;
    if (raw_status(fd, names[i], &st, AT_SYMLINK_NOFOLLOW) != 0 || find(st.st_dev, st.st_ino))
      continue;
    if (S_ISDIR(st.st_mode)) {
      add(st.st_dev, st.st_ino, 0, next_made++, FIXED);
      char sub[4096];
      int len = snprintf(sub, sizeof sub, "%s/%s", dir[1] ? dir : "", names[i]);
      if (len > 0 && (size_t)len < sizeof sub)
        number_hosts(sub, 0);
    } else {
      add(st.st_dev, st.st_ino, 0, next_made++, HOST);
    }
  }
  close(fd);
}

static void get_ready(void) {
  if (ready)
    return;
  ready = 1;
  struct timespec now;
  syscall(SYS_clock_gettime, CLOCK_REALTIME, &now);
  began = now.tv_sec - 60;
  /* What the test's paths name first: the working directory, its parent
   * and its symbolic files, then the fixed tree. */
  add_path(AT_FDCWD, ".", 0, MNEMO_INO_WORK, OWN);
  add_path(AT_FDCWD, "..", 0, MNEMO_INO_PARENT, FIXED);
  char name[2] = "A";
  for (int i = 0; i < 26; i++) {
    name[0] = (char)('A' + i);
    if (!add_path(AT_FDCWD, name, 0, MNEMO_INO_SYM_FILES + i, OWN))
      break;
  }
  add_path(AT_FDCWD, "/", 0, MNEMO_INO_ROOT, FIXED);
  add_path(AT_FDCWD, "/dev", 0, MNEMO_INO_DEV, FIXED);
  add_path(AT_FDCWD, "/dev/null", MNEMO_DEV_NULL, MNEMO_INO_NULL, FIXED);
  add_path(AT_FDCWD, "/proc", 0, MNEMO_INO_PROC, FIXED);
  add_path(AT_FDCWD, "/proc/uptime", 0, MNEMO_INO_UPTIME, FIXED);
  add_path(AT_FDCWD, "/tmp", 0, MNEMO_INO_TMP, FIXED);
  for (int fd = 0; fd < 3; fd++) {
    struct stat st;
    if (syscall(SYS_fstat, fd, &st) == 0 && !find(st.st_dev, st.st_ino))
      add(st.st_dev, st.st_ino, st.st_dev, st.st_ino, REAL);
  }
  char cwd[64];
  long len = syscall(SYS_getcwd, cwd, sizeof cwd);
  if (len > 0 && !strcmp(cwd, "/tmp/mnemo-replay/cwd"))
    number_hosts("/", 1);
}

/* As the program starts, before it makes anything. */
__attribute__((constructor)) static void at_start(void) { get_ready(); }

static void model_time(struct timespec *t, enum kind kind) {
  if (kind == FIXED || t->tv_sec >= began)
    *t = (struct timespec){MNEMO_TIME, 0};
}

/* The model's identity of the file the kernel numbers `ino` on `dev`:
 * what it was given, or the next number of what the model makes for a
 * file, directory or symbolic link seen for the first time. Null for
 * what keeps its own (a pipe, a device, past MAX_KNOWN). */
static struct identity *identity_of(dev_t dev, ino_t ino, mode_t mode) {
  get_ready();
  struct identity *id = find(dev, ino);
  if (id || !(S_ISREG(mode) || S_ISDIR(mode) || S_ISLNK(mode)))
    return id;
  id = add(dev, ino, 0, next_made, OWN);
  if (id)
    next_made++;
  return id;
}

unsigned long __mnemo_model_inode(unsigned long dev, unsigned long ino, unsigned type) {
  /* readdir's d_type: DT_DIR, DT_REG and DT_LNK are the mode's type >> 12. */
  struct identity *id = identity_of(dev, ino, (mode_t)type << 12);
  return id ? id->model_ino : ino;
}

static int status(int fd, const char *path, struct stat *st, int flag) {
  if (raw_status(fd, path, st, flag) != 0)
    return -1;
  struct identity *id = identity_of(st->st_dev, st->st_ino, st->st_mode);
  if (!id || id->kind == REAL)
    return 0;
  st->st_dev = id->model_dev;
  st->st_ino = id->model_ino;
  if (id->kind == HOST) {
    st->st_atim = st->st_ctim = st->st_mtim;
  } else {
    model_time(&st->st_atim, id->kind);
    model_time(&st->st_mtim, id->kind);
    model_time(&st->st_ctim, id->kind);
  }
  return 0;
}

int fstatat(int fd, const char *restrict path, struct stat *restrict st, int flag) {
  return status(fd, path, st, flag);
}

int stat(const char *restrict path, struct stat *restrict st) {
  return status(AT_FDCWD, path, st, 0);
}

int lstat(const char *restrict path, struct stat *restrict st) {
  return status(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

/* A negative descriptor is refused, as the C library's fstat does, not
 * taken for AT_FDCWD. */
int fstat(int fd, struct stat *st) {
  if (fd < 0) {
    errno = EBADF;
    return -1;
  }
  return status(fd, "", st, AT_EMPTY_PATH);
}

/* glibc's names for them where files are 64-bit (one layout on x86-64),
 * and musl's aliases, which would otherwise bring its own in. */
int fstatat64(int fd, const char *restrict path, struct stat64 *restrict st, int flag) {
  return status(fd, path, (struct stat *)st, flag);
}

int stat64(const char *restrict path, struct stat64 *restrict st) {
  return status(AT_FDCWD, path, (struct stat *)st, 0);
}

int lstat64(const char *restrict path, struct stat64 *restrict st) {
  return status(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}

int fstat64(int fd, struct stat64 *st) { return fstat(fd, (struct stat *)st); }
