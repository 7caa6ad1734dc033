/* The program makes, links, renames and removes names in its working
 * directory, in a directory it makes and in /tmp, as it may in a replay's
 * directory: files, directories, hard and symbolic links, a FIFO. It
 * prints every result and error, so the native replay compares each step.
 * The symbolic file A is a regular file or an empty directory, as its
 * status says: two paths.
 * program-args: --sym-files 1 4
 * expect-completed: 2
 * expect-tests: 2
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void say(const char *what, long r) {
  printf("%s %ld errno %d\n", what, r, r < 0 ? errno : 0);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names a directory lists, sorted: the order of readdir is the file
 * system's. */
static void list(const char *dir) {
  char *names[32];
  int n = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && n < 32 && (e = readdir(d)))
    names[n++] = strdup(e->d_name);
  qsort(names, n, sizeof *names, by_name);
  printf("%s:", dir);
  for (int i = 0; i < n; i++)
    printf(" %s", names[i]);
  printf("\n");
  if (d)
    closedir(d);
}

int main(void) {
  struct stat st;
  char buf[64];
  umask(022);
  int fd = open("new", O_WRONLY | O_CREAT | O_EXCL, 0666);
  say("create", fd >= 0 ? 0 : -1);
  say("write", write(fd, "hello", 5));
  close(fd);
  say("stat", stat("new", &st));
  printf("mode %o size %lld links %lu\n", st.st_mode, (long long)st.st_size,
         (unsigned long)st.st_nlink);
  say("create again", open("new", O_WRONLY | O_CREAT | O_EXCL, 0666));
  say("mkdir", mkdir("d", 0700));
  say("mkdir again", mkdir("d", 0700));
  say("stat dir", stat("d/", &st));
  printf("dir %d mode %o links %lu\n", S_ISDIR(st.st_mode), st.st_mode & 07777,
         (unsigned long)st.st_nlink);
  say("rename into", rename("new", "d/moved"));
  say("old name", access("new", F_OK));
  fd = open("./d/moved", O_RDONLY);
  say("read moved", read(fd, buf, sizeof buf));
  close(fd);
  say("file as dir", open("d/moved/x", O_RDONLY));
  say("link", link("d/moved", "hard"));
  say("stat link", stat("hard", &st));
  printf("links %lu\n", (unsigned long)st.st_nlink);
  say("symlink", symlink("d/moved", "soft"));
  long n = readlink("soft", buf, sizeof buf);
  say("readlink", n);
  printf("target %.*s\n", (int)(n > 0 ? n : 0), buf);
  say("readlink file", readlink("hard", buf, sizeof buf));
  say("stat soft", stat("soft", &st));
  printf("regular %d size %lld\n", S_ISREG(st.st_mode), (long long)st.st_size);
  say("lstat soft", lstat("soft", &st));
  printf("link %d\n", S_ISLNK(st.st_mode));
  list(".");
  list("d");
  say("rmdir full", rmdir("d"));
  say("unlink dir", unlink("d"));
  say("unlink", unlink("d/moved"));
  say("dangling", stat("soft", &st));
  say("stat hard", stat("hard", &st));
  printf("links %lu\n", (unsigned long)st.st_nlink);
  say("rmdir", rmdir("d"));
  say("rename A", rename("A", "B"));
  say("open A", open("A", O_RDONLY));
  say("replace", rename("hard", "B"));
  say("stat B", stat("B", &st));
  /* B is A's directory on one path: its size is the file system's. */
  printf("size %lld\n", S_ISDIR(st.st_mode) ? -1LL : (long long)st.st_size);
  say("mkdir e", mkdir("e", 0755));
  say("chdir e", chdir("e"));
  char *here = getcwd(buf, sizeof buf);
  printf("cwd ends %s\n", here ? strrchr(here, '/') : "(none)");
  fd = open("f", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  say("create f", fd >= 0 ? 0 : -1);
  close(fd);
  say("chdir up", chdir(".."));
  say("stat e/f", stat("e/f", &st));
  say("rename dir into itself", rename("e", "e/g"));
  say("rename dir over file", rename("e", "B"));
  say("mkfifo", mkfifo("p", 0644));
  say("stat p", stat("p", &st));
  printf("fifo %d\n", S_ISFIFO(st.st_mode));
  fd = open("p", O_RDONLY | O_NONBLOCK);
  say("read end", fd >= 0 ? 0 : -1);
  close(fd);
  say("write end", open("p", O_WRONLY | O_NONBLOCK));
  char tmp[] = "/tmp/mnemo-names-XXXXXX";
  fd = mkstemp(tmp);
  say("mkstemp", fd >= 0 ? 0 : -1);
  say("write tmp", write(fd, "abc", 3));
  say("unlink tmp", unlink(tmp));
  say("fstat tmp", fstat(fd, &st));
  printf("size %lld links %lu\n", (long long)st.st_size, (unsigned long)st.st_nlink);
  close(fd);
  say("rename dot", rename(".", "x"));
  say("rmdir dot", rmdir("."));
  say("symlink loop", symlink("loop", "loop"));
  say("open loop", open("loop", O_RDONLY));
  say("create slash", open("q/", O_WRONLY | O_CREAT, 0644));
  say("mkdir slash", mkdir("r/", 0755));
  list(".");
  return 0;
}
