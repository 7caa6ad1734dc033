/* A file made by a symbolic name: the name is compared with the names
 * the working directory has (A, ".", "./"), each a path of its own, and
 * any other name is fixed to one value and made: one of one character,
 * one of two that starts as "./" does, one of two that does not. The
 * empty name is missing. A name that leads out of the working directory
 * is assumed away (a native replay runs as root).
 * program-args: --sym-args 1 1 2 --sym-files 1 2
 * expect-completed: 7
 * expect-tests: 7
 */
#include <errno.h>
#include <fcntl.h>
#include <klee/klee.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  const char *name = argv[1];
  klee_assume(name[0] != '/');
  klee_assume(name[0] != '.' | name[1] != '.');
  int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    printf("open fails: %d\n", errno);
    return 1;
  }
  struct stat st;
  printf("made: %d\n", write(fd, "z", 1) == 1 && stat(name, &st) == 0 && st.st_size == 1);
  return 0;
}
