/* A file's device and inode numbers and its times are the model's, in
 * the engine and in the native replay alike (the replay compares what
 * the program prints): the working directory, its parent, /, /dev/null
 * and the symbolic file A have the model's fixed numbers; what the
 * program makes is numbered in the order it makes it (a pipe apart), a
 * hard link shares its file's number, and readdir gives the numbers stat
 * gives. Every time is the model's clock's but one the program sets (of
 * a file it made, or of the working directory). A is a regular file or
 * an empty directory, as its status says: two paths.
 * program-args: --sym-files 1 2
 * expect-completed: 2
 * expect-tests: 2
 */
#include <assert.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void print(const char *label, const struct stat *st) {
  printf("%s: dev %lu ino %lu times %lld %lld %lld\n", label, (unsigned long)st->st_dev,
         (unsigned long)st->st_ino, (long long)st->st_atime, (long long)st->st_mtime,
         (long long)st->st_ctime);
}

static struct stat show(const char *path) {
  struct stat st;
  assert(lstat(path, &st) == 0);
  print(path, &st);
  return st;
}

int main(void) {
  show(".");
  show("..");
  show("/");
  show("/dev/null");
  struct stat a = show("A");

  /* A pipe takes none of the numbers of what the program makes. */
  int ends[2];
  assert(pipe(ends) == 0);
  close(ends[0]);
  close(ends[1]);
  int fd = open("made", O_WRONLY | O_CREAT, 0644);
  assert(fd >= 0);
  assert(write(fd, "x", 1) == 1);
  struct stat made;
  assert(fstat(fd, &made) == 0);
  print("made, open", &made);
  close(fd);
  assert(mkdir("sub", 0755) == 0);
  struct stat sub = show("sub");
  assert(symlink("made", "link") == 0);
  show("link");
  assert(link("made", "hard") == 0);
  struct stat hard = show("hard");
  assert(hard.st_ino == made.st_ino && hard.st_dev == made.st_dev);
  assert(sub.st_ino != made.st_ino && a.st_ino != made.st_ino);

  /* Times the program sets are its own; the change time is the clock's. */
  struct timespec old[2] = {{1000000000, 0}, {1000000001, 0}};
  assert(utimensat(AT_FDCWD, "made", old, 0) == 0);
  struct stat set = show("made");
  assert(set.st_atime == 1000000000 && set.st_mtime == 1000000001);
  assert(utimensat(AT_FDCWD, ".", old, 0) == 0);
  set = show(".");
  assert(set.st_atime == 1000000000 && set.st_mtime == 1000000001);

  DIR *d = opendir(".");
  assert(d);
  for (struct dirent *e; (e = readdir(d));) {
    struct stat st;
    assert(lstat(e->d_name, &st) == 0);
    assert(e->d_ino == st.st_ino);
    printf("%lu %s\n", (unsigned long)e->d_ino, e->d_name);
  }
  closedir(d);
  return 0;
}
