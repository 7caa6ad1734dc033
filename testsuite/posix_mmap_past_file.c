/* A mapping of a file reaches only as far as the file's last page: a
 * page wholly past its end is not there, and a touch of it is a pointer
 * error, as natively it is SIGBUS. Three pages of an 8-byte file: the
 * first reads the file's bytes, then zeros, and the second is not there.
 * A mapping that starts past the file's end has no page at all. Where A
 * is a directory, as its status may say, one path for each count of
 * arguments.
 * program-args: --sym-files 1 8 --sym-args 0 1 1
 * expect-completed: 3
 * expect-error: ptr 29 1
 * expect-error: ptr 34 1
 * expect-tests: 5
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>

int main(int argc, char **argv) {
  int fd = open("A", O_RDONLY);
  if (fd < 0)
    return 1;
  /* A directory cannot be mapped. */
  char *p = mmap(0, 3 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED)
    return 3;
  printf("last of the first page: %d\n", p[4095]);
  fflush(stdout);
  if (argc > 1 && argv[1][0] == 'x')
    return p[4096];
  if (argc > 1) {
    char *past = mmap(0, 4096, PROT_READ, MAP_PRIVATE, fd, 4096);
    if (past == MAP_FAILED)
      return 4;
    return past[0];
  }
  return munmap(p, 3 * 4096) != 0;
}
