/* A directory lists ".", "..", then its names in the order of their
 * bytes, in the engine and in the native replay alike, whatever order
 * they were made in: the program makes names out of order next to the
 * symbolic file A, prints the listing as readdir gives it (the replay
 * compares it), and checks the order itself. rewinddir starts the
 * listing again, and seekdir goes back to where telldir was. A name
 * removed and made again takes its place in the order, not the end. A
 * is a regular file or an empty directory, as its status says: two paths.
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

/* ".", "..", then any other name. */
static int rank(const char *name) {
  return strcmp(name, ".") == 0 ? 0 : strcmp(name, "..") == 0 ? 1 : 2;
}

/* Prints what `d` lists from where it stands, checks that each entry
 * comes after the one before, and returns how many it listed. */
static int list(DIR *d, const char *label) {
  char last[64] = "";
  int n = 0;
  struct dirent *e;
  printf("%s:", label);
  while ((e = readdir(d))) {
    printf(" %s", e->d_name);
    if (n > 0) {
      int r = rank(last), s = rank(e->d_name);
      assert(r < s || (r == s && r == 2 && strcmp(last, e->d_name) < 0));
    }
    snprintf(last, sizeof last, "%s", e->d_name);
    n++;
  }
  printf("\n");
  return n;
}

static void make(const char *name) {
  int fd = open(name, O_WRONLY | O_CREAT, 0644);
  assert(fd >= 0);
  close(fd);
}

int main(void) {
  make("zeta");
  assert(mkdir("mid", 0755) == 0);
  make("Upper");
  make("alpha");
  make("beta2");
  make("beta");
  make("mid/z");
  make("mid/a");

  DIR *d = opendir(".");
  assert(d);
  int n = list(d, ".");
  assert(n == 9);
  rewinddir(d);
  struct dirent *e = readdir(d);
  assert(e && strcmp(e->d_name, ".") == 0);
  e = readdir(d);
  e = readdir(d);
  long at = telldir(d);
  printf("after %s\n", e->d_name);
  list(d, "rest");
  seekdir(d, at);
  assert(list(d, "again") == n - 3);
  closedir(d);

  d = opendir("mid");
  assert(d && list(d, "mid") == 4);
  closedir(d);

  /* Removed and made again, a name sorts where it did. */
  assert(unlink("alpha") == 0);
  make("alpha");
  d = opendir(".");
  assert(d && list(d, "remade") == n);
  closedir(d);
  return 0;
}
