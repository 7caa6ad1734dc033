/* open() of a name reached through a symbolic pointer, as gawk's getopt
 * finds an option's argument at an offset that adds whether the option
 * began with one dash or two. The argument is "?-x/dev", so the name is
 * "/dev"; its first byte says whether to create the name or read it.
 *
 * The model could not see where such a pointer's object ends. To create
 * the name, it fixed its bytes a word at a time, past the terminator and
 * past the argument's end: a pointer error that the program does not
 * make. To read it, it took the name for one without a slash, so
 * missing, where natively "/dev" opens. It now fixes such a name a byte
 * at a time up to its terminator, as strlen reads it, and walks it.
 * (The argument's bytes are each one value, so the name fixed is the same
 * whatever model the solver gives.)
 * expect-completed: 2
 * expect-tests: 2
 */
#include <errno.h>
#include <fcntl.h>
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  char arg[8];
  klee_make_symbolic(arg, sizeof arg, "arg");
  klee_assume(arg[1] == '-');
  klee_assume(arg[2] == 'x');
  klee_assume(arg[3] == '/');
  klee_assume(arg[4] == 'd');
  klee_assume(arg[5] == 'e');
  klee_assume(arg[6] == 'v');
  klee_assume(arg[7] == 0);
  const char *name = arg + 2 + (arg[1] == '-');
  int create = arg[0] == 'c';
  int fd = create ? open(name, O_WRONLY | O_CREAT, 0644) : open(name, O_RDONLY);
  if (fd < 0) {
    puts(errno == ENOENT ? "missing" : errno == EISDIR ? "directory" : "other");
    return 1;
  }
  return 0;
}
