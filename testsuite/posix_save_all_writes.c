/* KLEE's `--save-all-writes`: writes past the end of a symbolic file are
 * kept (KLEE drops them without it). The model always keeps them, as a
 * native file does, and takes the option as asking for what it does. The
 * program appends to A and reads the whole file back: where A is a
 * regular file, 5 bytes, its 2 symbolic ones then the 3 appended, which
 * it prints (one path), and where its status says
 * directory, opening it for writing fails (the other path). Both replay
 * natively with the same output.
 * program-args: --sym-files 1 2 --save-all-writes
 * expect-completed: 2
 * expect-tests: 2
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  int fd = open("A", O_RDWR | O_APPEND);
  if (fd < 0) {
    puts("not writable");
    return 1;
  }
  if (write(fd, "xyz", 3) != 3)
    return 2;
  char buf[16];
  lseek(fd, 0, SEEK_SET);
  long n = read(fd, buf, sizeof buf);
  /* Printing the symbolic bytes would fork on each digit. */
  printf("%ld: %.3s\n", n, n == 5 ? buf + 2 : "?");
  return 0;
}
