/* A file made by a symbolic name, "m" followed by the argument: no file
 * has such a name, so the name is fixed to one value it can have and
 * made, one path for each length strcat finds (each then replays as
 * made natively), not one for each name. The fixed "m" keeps a native
 * replay (as root) in its directory, whatever a mutant of the program
 * does with the argument.
 * program-args: --sym-args 1 1 2 --sym-files 1 2
 * expect-completed: 3
 * expect-tests: 3
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char name[4] = "m";
  strcat(name, argv[1]);
  int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    printf("open fails: %d\n", errno);
    return 1;
  }
  struct stat st;
  printf("made: %d\n", write(fd, "z", 1) == 1 && stat(name, &st) == 0 && st.st_size == 1);
  return 0;
}
