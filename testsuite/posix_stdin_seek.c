/* stdin is what a replay gives: a pipe, or a terminal where its symbolic
 * status says character device, never a regular file. Neither can seek:
 * lseek and pread fail with ESPIPE, in the model as natively. 2 paths,
 * by the type fstat reports.
 * program-args: --sym-stdin 2
 * expect-completed: 2
 * expect-tests: 2
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  struct stat st;
  char c;
  assert(fstat(0, &st) == 0);
  const char *type = S_ISFIFO(st.st_mode) ? "pipe" : S_ISCHR(st.st_mode) ? "terminal" : "other";
  assert(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
  errno = 0;
  assert(lseek(0, 1, SEEK_SET) == -1 && errno == ESPIPE);
  errno = 0;
  assert(pread(0, &c, 1, 0) == -1 && errno == ESPIPE);
  /* What a read gives is stdin's first byte all the same. */
  assert(read(0, &c, 1) == 1);
  printf("%s: cannot seek\n", type);
  return 0;
}
