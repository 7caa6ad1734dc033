/* --sym-stdout makes stdout's status symbolic: isatty(1) explores both
 * answers, and stdout is a terminal or a pipe (a replay gives either; the
 * model's stdout is a stream, so never a regular file, whose offset it
 * would have to keep). The replay writes a terminal path's stdout to a
 * terminal, so natively isatty(1) says yes there too, and both paths
 * replay with the same output.
 * program-args: --sym-stdout
 * expect-completed: 2
 * expect-tests: 2
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  struct stat st;
  if (fstat(1, &st) != 0 || S_ISREG(st.st_mode))
    return 2;
  if (isatty(1)) {
    puts("a terminal");
    return 1;
  }
  puts("a pipe");
  return 0;
}
