/* isatty() of a symbolic stdin asks whether its symbolic status is a
 * character device (2 ways). With --sym-stdout, stdio's first write asks
 * the same of stdout (2 ways more where the program prints); where stdin is
 * no terminal, its one byte is 'x' or not (2 ways). 2 + 2 = 4 paths.
 * program-args: --sym-stdin 1 --sym-stdout
 * expect-completed: 4
 * expect-tests: 4
 */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  if (isatty(0)) {
    puts("terminal");
    return 1;
  }
  if (getchar() == 'x')
    return 2;
  return 0;
}
