/*
 * The model's order of a directory's entries in a native run: ".", "..",
 * then the names in the order of their bytes, as the engine lists them
 * (entry() in runtime/musl/src/mnemo_names.c), where the file system
 * has an order of its own (ext4 a hash's, tmpfs newest first). A test of
 * `find` or `du -a` then prints its names in the order the engine
 * predicted. Each entry's inode number is the model's (status.c).
 *
 * Defined in the program, these take the place of the C library's
 * readdir, telldir and seekdir for the program's own calls (and, linked
 * statically, for the library's own users of readdir: scandir, glob).
 * Each directory stream is read whole at its first readdir and listed
 * sorted from then on. One read again from its start (rewinddir, which
 * moves its descriptor back to 0, or a stream opened anew where a closed
 * one was) is read again: the descriptor stands past 0 once a directory
 * has been read whole.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "status.h"

/* A directory stream's entries, read whole and sorted. */
struct listing {
  DIR *dir;
  int fd;
  /* The entries as the kernel gave them; `sorted` points into it. */
  char *buf;
  struct dirent **sorted;
  long count;
  /* The position: the index of the entry readdir gives next. */
  long next;
  struct listing *link;
};

static struct listing *listings;

/* ".", "..", then any other name. */
static int rank(const char *name) {
  return strcmp(name, ".") == 0 ? 0 : strcmp(name, "..") == 0 ? 1 : 2;
}

static int in_order(const void *a, const void *b) {
  const char *x = (*(struct dirent *const *)a)->d_name;
  const char *y = (*(struct dirent *const *)b)->d_name;
  int rx = rank(x), ry = rank(y);
  return rx != ry ? rx - ry : strcmp(x, y);
}

static void drop(struct listing **at) {
  struct listing *gone = *at;
  *at = gone->link;
  free(gone->buf);
  free(gone->sorted);
  free(gone);
}

/* Reads `dir` (on `fd`) whole, in place of what was kept of it and of
 * the listings of closed streams: those whose descriptors are closed, or
 * are `fd`, which only one open stream holds. Null, errno set, when the
 * kernel refuses. */
static struct listing *load(DIR *dir, int fd) {
  for (struct listing **l = &listings; *l;) {
    if ((*l)->dir == dir || (*l)->fd == fd || fcntl((*l)->fd, F_GETFD) < 0)
      drop(l);
    else
      l = &(*l)->link;
  }
  size_t cap = 8192, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    /* Room for the longest entry: getdents64 refuses a smaller buffer. */
    if (buf && cap - len < 512) {
      char *more = realloc(buf, cap * 2);
      if (!more)
        free(buf);
      buf = more;
      cap *= 2;
    }
    if (!buf) {
      errno = ENOMEM;
      return NULL;
    }
    long got = syscall(SYS_getdents64, fd, buf + len, cap - len);
    if (got < 0) {
      free(buf);
      return NULL;
    }
    if (got == 0)
      break;
    len += (size_t)got;
  }
  long count = 0;
  for (size_t at = 0; at < len; at += ((struct dirent *)(buf + at))->d_reclen)
    count++;
  struct listing *l = calloc(1, sizeof *l);
  struct dirent **sorted = malloc((count ? count : 1) * sizeof *sorted);
  if (!l || !sorted) {
    free(l);
    free(sorted);
    free(buf);
    errno = ENOMEM;
    return NULL;
  }
  /* The entries' inode numbers as the model's (status.c), on the
   * directory's device; "..", which names the directory above the root
   * of a chroot (or of a mount) on the disk, as a lookup resolves it. */
  struct stat dir_st, up_st;
  int numbered = syscall(SYS_fstat, fd, &dir_st) == 0;
  int up_known = syscall(SYS_newfstatat, fd, "..", &up_st, 0) == 0;
  long k = 0;
  for (size_t at = 0; at < len; at += ((struct dirent *)(buf + at))->d_reclen) {
    struct dirent *e = (struct dirent *)(buf + at);
    if (up_known && strcmp(e->d_name, "..") == 0)
      e->d_ino = __mnemo_model_inode(up_st.st_dev, up_st.st_ino, DT_DIR);
    else if (numbered)
      e->d_ino = __mnemo_model_inode(dir_st.st_dev, e->d_ino, e->d_type);
    sorted[k++] = e;
  }
  qsort(sorted, (size_t)count, sizeof *sorted, in_order);
  /* Offsets as the model gives them: the position after the entry. */
  for (k = 0; k < count; k++)
    sorted[k]->d_off = k + 1;
  *l = (struct listing){dir, fd, buf, sorted, count, 0, listings};
  listings = l;
  return l;
}

/* The listing of `dir` as it stands: read anew where the stream is new
 * or was rewound. Null, errno set, when it cannot be read. */
static struct listing *current(DIR *dir) {
  int fd = dirfd(dir);
  if (fd < 0)
    return NULL;
  struct listing *l = listings;
  while (l && l->dir != dir)
    l = l->link;
  if (l && l->fd == fd && lseek(fd, 0, SEEK_CUR) != 0)
    return l;
  int saved = errno;
  l = load(dir, fd);
  if (l)
    errno = saved;
  return l;
}

struct dirent *readdir(DIR *dir) {
  struct listing *l = current(dir);
  return l && l->next < l->count ? l->sorted[l->next++] : NULL;
}

/* glibc's name for it where files are 64-bit (one layout on x86-64). */
struct dirent *readdir64(DIR *dir) { return readdir(dir); }

long telldir(DIR *dir) {
  struct listing *l = current(dir);
  return l ? l->next : -1;
}

void seekdir(DIR *dir, long at) {
  struct listing *l = current(dir);
  if (l)
    l->next = at < 0 ? 0 : at > l->count ? l->count : at;
}
