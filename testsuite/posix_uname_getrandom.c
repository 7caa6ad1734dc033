/* The machine uname names and the bytes getrandom gives are the model's,
 * fixed so that runs are deterministic, and the replay library gives a
 * native run the same: both are printed, and the replay compares them
 * with the engine's. A different answer on a second call exits 1.
 * expect-completed: 1
 * expect-tests: 1
 */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>

int main(void) {
  struct utsname u, again;
  if (uname(&u) != 0 || uname(&again) != 0 || memcmp(&u, &again, sizeof u) != 0)
    return 1;
  printf("%s %s %s %s %s\n", u.sysname, u.nodename, u.release, u.version, u.machine);
  unsigned char bytes[8], more[8];
  if (getrandom(bytes, sizeof bytes, 0) != sizeof bytes ||
      getrandom(more, sizeof more, 0) != sizeof more || memcmp(bytes, more, sizeof bytes) != 0)
    return 1;
  for (unsigned i = 0; i < sizeof bytes; i++)
    printf("%02x", bytes[i]);
  printf("\n");
  return 0;
}
