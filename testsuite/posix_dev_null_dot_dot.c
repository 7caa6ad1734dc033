/* Names every directory has and every program may use: /dev/null takes
 * writes, reads as empty and is no terminal, ".." is a directory, and
 * unlink and rmdir fail on the working directory's names and on a file
 * with the errors the kernel gives before any permission check. All
 * concrete but the symbolic file's type: a regular file, which rmdir
 * refuses, or an empty directory, which it removes; two paths, each
 * replayed natively in its scratch directory with the same output.
 * program-args: --sym-files 1 2
 * expect-completed: 2
 * expect-tests: 2
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *name(int e) {
  switch (e) {
  case ENOENT: return "ENOENT";
  case ENOTDIR: return "ENOTDIR";
  case EISDIR: return "EISDIR";
  case EINVAL: return "EINVAL";
  case EBUSY: return "EBUSY";
  case ENOTEMPTY: return "ENOTEMPTY";
  default: return "other";
  }
}

static void show(const char *what, int r) {
  printf("%s: %d %s\n", what, r, r < 0 ? name(errno) : "-");
}

int main(void) {
  int fd = open("/dev/null", O_RDWR);
  if (fd < 0)
    return 1;
  printf("write %zd\n", write(fd, "hello", 5));
  char c;
  printf("read %zd\n", read(fd, &c, 1));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))
    return 2;
  printf("isatty %d\n", isatty(fd));
  close(fd);
  if (stat("..", &st) != 0 || !S_ISDIR(st.st_mode))
    return 3;
  show("rmdir A", rmdir("A"));
  show("rmdir .", rmdir("."));
  show("rmdir ..", rmdir(".."));
  show("rmdir /", rmdir("/"));
  show("rmdir missing", rmdir("missing"));
  show("unlink .", unlink("."));
  show("unlink missing", unlink("missing"));
  show("unlinkat A dir", unlinkat(AT_FDCWD, "A", AT_REMOVEDIR));
  return 0;
}
