/* A descriptor opened with O_PATH (musl's O_SEARCH, which gnulib's savewd
 * and fts use) names a file without access to it, as in Linux: fstat,
 * fchdir, dup and use as the directory of an *at call work; read, write
 * and a directory listing fail with EBADF; O_TRUNC is ignored, and a
 * symbolic link is opened itself under O_NOFOLLOW. The symbolic file is an
 * empty directory (one path) or a regular file with two paths on its
 * first byte, each replayed natively.
 * program-args: --sym-files 1 4
 * expect-completed: 3
 * expect-tests: 3
 */
#define _GNU_SOURCE
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  assert(mkdir("d", 0700) == 0);
  int dir = open("d", O_PATH | O_DIRECTORY);
  assert(dir >= 0);
  struct stat st;
  assert(fstat(dir, &st) == 0 && S_ISDIR(st.st_mode));
  char c;
  errno = 0;
  assert(read(dir, &c, 1) == -1 && errno == EBADF);
  int made = openat(dir, "f", O_CREAT | O_WRONLY, 0600);
  assert(made >= 0 && close(made) == 0);
  DIR *list = fdopendir(dup(dir));
  if (list) {
    errno = 0;
    assert(readdir(list) == NULL && errno == EBADF);
    closedir(list);
  }
  assert(fchdir(dir) == 0 && access("f", F_OK) == 0 && chdir("..") == 0);

  int file = open("A", O_PATH | O_RDWR | O_TRUNC);
  assert(file >= 0);
  errno = 0;
  assert(write(file, "x", 1) == -1 && errno == EBADF);
  assert(fstat(file, &st) == 0 && (S_ISDIR(st.st_mode) || st.st_size == 4));
  assert(close(file) == 0);
  int a_is_dir = S_ISDIR(st.st_mode);

  assert(symlink("A", "l") == 0);
  int link = open("l", O_PATH | O_NOFOLLOW);
  assert(link >= 0 && fstat(link, &st) == 0 && S_ISLNK(st.st_mode));
  errno = 0;
  assert(open("l", O_RDONLY | O_NOFOLLOW) == -1 && errno == ELOOP);

  if (a_is_dir)
    return 2;
  int plain = open("A", O_RDONLY);
  assert(plain >= 0 && read(plain, &c, 1) == 1);
  if (c == 'x')
    return 1;
  return 0;
}
