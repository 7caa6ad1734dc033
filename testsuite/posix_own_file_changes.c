/* The symbolic file A is the program's own, as its replay makes it: its
 * size, mode and times change, a write past its end grows it and the gap
 * reads as zeros. The program prints what it finds, so the native replay
 * compares every step; the one branch on A's contents makes two paths,
 * and a third is A as an empty directory, which cannot be opened for
 * writing.
 * program-args: --sym-files 1 4
 * expect-completed: 3
 * expect-tests: 3
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  struct stat st;
  char b[12];
  int fd = open("A", O_RDWR);
  if (fd < 0)
    return 1;
  if (pread(fd, b, 1, 0) != 1)
    return 2;
  if (b[0] == 'x')
    puts("x first");
  printf("ftruncate %d\n", ftruncate(fd, 2));
  printf("pwrite %zd\n", pwrite(fd, "z", 1, 9));
  printf("fstat %d size %lld\n", fstat(fd, &st), (long long)st.st_size);
  printf("pread %zd\n", pread(fd, b, sizeof b, 0));
  printf("gap %d %d end %c\n", b[2], b[8], b[9]);
  printf("chmod %d\n", chmod("A", 0640));
  printf("stat %d mode %o\n", stat("A", &st), st.st_mode & 07777);
  struct timespec when[2] = {{86400, 0}, {172800, 0}};
  printf("utimensat %d\n", utimensat(AT_FDCWD, "A", when, 0));
  printf("times %d %lld %lld\n", stat("A", &st), (long long)st.st_atim.tv_sec,
         (long long)st.st_mtim.tv_sec);
  printf("truncate %d\n", truncate("A", 0));
  printf("size %d %lld\n", stat("A", &st), (long long)st.st_size);
  printf("append %zd\n", write(open("A", O_WRONLY | O_APPEND), "ab", 2));
  printf("size %d %lld\n", stat("A", &st), (long long)st.st_size);
  return 0;
}
