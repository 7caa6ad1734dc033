/* A mapping is whole pages: a file of 8 bytes mapped for its 8 bytes
 * reads them, then zeros up to the page's end, as libopts relies on when
 * it reads an option file it mapped as a string. strlen of the mapping
 * finds the first zero among the file's symbolic bytes, or the one after
 * them: nine paths, and one where A is a directory, as its status may
 * say. A mapping at an offset that is no whole number of pages fails.
 * program-args: --sym-files 1 8
 * expect-completed: 10
 * expect-tests: 10
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  int fd = open("A", O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0)
    return 1;
  if (!S_ISREG(st.st_mode))
    return 2;
  char *p = mmap(0, 8, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED)
    return 3;
  printf("%zu\n", strlen(p));
  for (int i = 8; i < 4096; i++)
    if (p[i])
      return 4;
  if (mmap(0, 8, PROT_READ, MAP_PRIVATE, fd, 1) != MAP_FAILED || errno != EINVAL)
    return 5;
  if (munmap(p, 8) != 0)
    return 6;
  return 0;
}
