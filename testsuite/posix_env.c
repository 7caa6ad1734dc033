/* `--env NAME=VALUE` among the program's arguments makes a variable of its
 * environment, sorted by name as a native replay's is; the environment is
 * otherwise empty, and the options are not among main's arguments. The symbolic argument equals
 * the variable's value, differs at its first character, or at its second:
 * 3 paths, each replayed natively with the same environment.
 * program-args: --env WHO=ab --sym-arg 2 --env EMPTY=
 * expect-completed: 3
 * expect-tests: 3
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

int main(int argc, char **argv, char **envp) {
  assert(argc == 2);
  assert(envp == environ);
  assert(environ[0] && strcmp(environ[0], "EMPTY=") == 0);
  assert(environ[1] && strcmp(environ[1], "WHO=ab") == 0);
  assert(environ[2] == NULL);
  assert(getenv("HOME") == NULL);
  const char *empty = getenv("EMPTY");
  assert(empty && *empty == '\0');
  return strcmp(argv[1], getenv("WHO")) == 0 ? 0 : 1;
}
