/* open() of a symbolic path: one character, as --sym-arg 1 makes it,
 * against one symbolic file A of one byte. The model's lookup tells an
 * empty name (missing), "A" (the file), "." and "/" (the directory) and
 * anything else (missing) apart: 5 ways. A is an empty directory (1 path)
 * or a regular file whose byte is 'y' or not (2 paths), as its symbolic
 * status says; another character is printed, and stdout's line buffering
 * asks whether it is a newline (2 paths). 1 + 3 + 1 + 1 + 2 = 8 paths.
 * program-args: --sym-arg 1 --sym-files 1 1
 * expect-completed: 8
 * expect-tests: 8
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) {
    printf("%s: %s\n", argv[1], errno == ENOENT ? "missing" : "other");
    return 1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0)
    return 5;
  if (S_ISDIR(st.st_mode)) {
    puts("directory");
    return 2;
  }
  char c;
  if (read(fd, &c, 1) != 1)
    return 3;
  if (c == 'y')
    return 4;
  return 0;
}
