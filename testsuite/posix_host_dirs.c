/* The directories the model makes on the way to a host file named by its
 * absolute path are root's and not writable by others, as on the host:
 * /etc for /etc/passwd (`ls -l /` printed its owner as the program's). The
 * one symbolic argument character is 'x' or not: 2 paths.
 * mnemo-args: --file /etc/passwd
 * program-args: --sym-arg 1
 * expect-completed: 2
 * expect-tests: 2
 */
#include <assert.h>
#include <sys/stat.h>

int main(int argc, char **argv) {
  struct stat st;
  assert(stat("/etc", &st) == 0 && S_ISDIR(st.st_mode));
  assert(st.st_uid == 0 && st.st_gid == 0);
  assert((st.st_mode & 0022) == 0);
  assert(stat("/etc/passwd", &st) == 0 && S_ISREG(st.st_mode));
  if (argv[1][0] == 'x')
    return 1;
  return 0;
}
