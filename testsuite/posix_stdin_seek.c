/* stdin is what a replay gives: a file where its symbolic status says
 * regular file, a terminal where it says character device, else a pipe;
 * never a socket or a block device. A file can seek; a pipe or a terminal
 * cannot (lseek and pread fail with ESPIPE), in the model as natively.
 * 3 paths, by the type fstat reports.
 * program-args: --sym-stdin 2
 * expect-completed: 3
 * expect-tests: 3
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  struct stat st;
  char first, second;
  assert(fstat(0, &st) == 0);
  int file = S_ISREG(st.st_mode);
  const char *type = file                     ? "file"
                     : S_ISFIFO(st.st_mode)   ? "pipe"
                     : S_ISCHR(st.st_mode)    ? "terminal"
                                              : "other";
  assert(file || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
  errno = 0;
  off_t at = lseek(0, 1, SEEK_SET);
  int seek_error = errno;
  errno = 0;
  ssize_t got = pread(0, &first, 1, 0);
  int pread_error = errno;
  if (file) {
    assert(at == 1 && got == 1);
    /* The read goes on where lseek left it: the second byte. */
    assert(read(0, &second, 1) == 1);
  } else {
    assert(at == -1 && seek_error == ESPIPE);
    assert(got == -1 && pread_error == ESPIPE);
    assert(read(0, &first, 1) == 1);
  }
  printf("%s: %s\n", type, file ? "seeks" : "cannot seek");
  return 0;
}
