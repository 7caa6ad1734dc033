/* With --sym-stdin and --sym-stdout both statuses are symbolic, device
 * and inode included; a replay gives stdout a file of its own, so the
 * model never lets the two be one file (cat's "input file is output
 * file" came from such a test, and replayed as a success). Two paths:
 * the devices differ, or the device is the same and the inodes differ;
 * none where both are the same.
 * program-args: --sym-stdin 2 --sym-stdout
 * expect-completed: 2
 * expect-tests: 2
 */
#include <sys/stat.h>

int main(void) {
  struct stat in, out;
  if (fstat(0, &in) != 0 || fstat(1, &out) != 0)
    return 2;
  if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
    return 1;
  return 0;
}
