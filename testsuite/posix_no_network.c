/* The model's machine has no network: a socket of any family is refused
 * as an unknown family is (EAFNOSUPPORT), and a native replay refuses
 * it the same way, where the machine would give one.
 * expect-completed: 1
 * expect-tests: 1
 */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>

int main(void) {
  const int families[] = {AF_UNIX, AF_INET, AF_INET6};
  for (unsigned i = 0; i < sizeof families / sizeof families[0]; i++) {
    int s = socket(families[i], SOCK_STREAM, 0);
    printf("family %d: %d, %s\n", families[i], s,
           s < 0 && errno == EAFNOSUPPORT ? "EAFNOSUPPORT" : "other");
  }
  return 0;
}
