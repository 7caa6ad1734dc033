/* The model has 64 descriptors and says so (getrlimit's RLIMIT_NOFILE),
 * and a native replay holds the program to as many: opening "." until it
 * fails counts the same descriptors, and fails with EMFILE, in the engine
 * and natively (where the machine would otherwise give a thousand or
 * more).
 * expect-completed: 1
 * expect-tests: 1
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>

int main(void) {
  struct rlimit r;
  if (getrlimit(RLIMIT_NOFILE, &r) != 0)
    return 1;
  int opened = 0;
  while (open(".", O_RDONLY) >= 0)
    opened++;
  printf("limit %llu/%llu, opened %d, %s\n", (unsigned long long)r.rlim_cur,
         (unsigned long long)r.rlim_max, opened, errno == EMFILE ? "EMFILE" : "other");
  return 0;
}
