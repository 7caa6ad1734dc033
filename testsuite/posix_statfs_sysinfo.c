/* What the machine says of its file systems (statfs, statvfs), its memory
 * and uptime (sysinfo) and its load (getloadavg) is the model's, fixed so
 * that runs are deterministic, and the replay library gives a native run
 * the same: each is printed, and the replay compares them with the
 * engine's. A file system is asked of only where the path or descriptor
 * is there: a missing name fails with ENOENT, a closed descriptor EBADF.
 * expect-completed: 1
 * expect-tests: 1
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>

int main(void) {
  struct statvfs v, root;
  if (statvfs(".", &v) != 0 || statvfs("/", &root) != 0)
    return 1;
  printf("statvfs: %lu %lu %lu %lu %lu %lu %lu\n", v.f_bsize, v.f_frsize,
         (unsigned long)v.f_blocks, (unsigned long)v.f_bfree, (unsigned long)v.f_bavail,
         (unsigned long)v.f_files, v.f_namemax);
  if (root.f_blocks != v.f_blocks || root.f_bsize != v.f_bsize)
    return 1;
  struct statfs f;
  if (fstatfs(1, &f) != 0)
    return 1;
  printf("fstatfs: %lx %ld %ld\n", (unsigned long)f.f_type, (long)f.f_bsize, (long)f.f_namelen);
  errno = 0;
  if (statfs("no-such-name", &f) != -1 || errno != ENOENT)
    return 1;
  errno = 0;
  if (fstatvfs(99, &v) != -1 || errno != EBADF)
    return 1;
  struct sysinfo s;
  if (sysinfo(&s) != 0)
    return 1;
  printf("sysinfo: %ld %lu %lu %lu %u\n", (long)s.uptime, s.loads[0], s.totalram * s.mem_unit,
         s.freeram * s.mem_unit, s.procs);
  double loads[3];
  if (getloadavg(loads, 3) != 3)
    return 1;
  printf("load: %.2f %.2f %.2f\n", loads[0], loads[1], loads[2]);
  return 0;
}
