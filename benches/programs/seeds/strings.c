/* string code: a command parser; the crash needs the keyword "deploy" and a digit
 * seed: cmd 6465706c6f79203721787800
 */
#include <klee/klee.h>
#include <string.h>
#include <assert.h>
int main(void) {
  char cmd[12];
  klee_make_symbolic(cmd, sizeof cmd, "cmd");
  cmd[11] = 0;
  int words = 0;
  for (int i = 0; i < 11; i++)
    if (cmd[i] == ' ') words++;
  if (strncmp(cmd, "deploy ", 7) == 0 && cmd[7] >= '0' && cmd[7] <= '9')
    assert(cmd[8] != '!');
  return words;
}
