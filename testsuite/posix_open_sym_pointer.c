/* open() of a name reached through a symbolic pointer, as gawk's getopt
 * finds an option's argument at an offset that adds whether the option
 * began with one dash or two; the first byte says whether to create it
 * or read it.
 *
 * To create it, the model fixes the name through the pointer a byte at
 * a time up to its terminator, as strlen would read it: a word at a
 * time, it read past the terminator and past the argument's end, and 19
 * paths ended in a pointer error that the program does not make. Now 15
 * names: five are created in the working directory, the empty one is
 * missing, and nine (".", "/", "/dev", "./", ...) are directories or lie
 * where the program may not create a file.
 *
 * To read it, the model took a name it could not see the end of for one
 * without a slash, missing unless a name of the working directory: 2 of
 * its 15 tests printed "missing" where the native run opened the name.
 * expect-completed: 30
 * expect-tests: 30
 */
#include <errno.h>
#include <fcntl.h>
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  char arg[8];
  klee_make_symbolic(arg, sizeof arg, "arg");
  klee_assume(arg[7] == 0);
  const char *name = arg + 2 + (arg[1] == '-');
  int create = arg[0] == 'c';
  int fd = create ? open(name, O_WRONLY | O_CREAT, 0644) : open(name, O_RDONLY);
  if (fd < 0) {
    puts(errno == ENOENT ? "missing" : "other");
    return 1;
  }
  return 0;
}
