/* tiny: prints each argument on a line, upper-cased with -u; with -l,
   counts the lines of a file (or of stdin) instead. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "caps.h"

#if !HAVE_STRNLEN || SIZEOF_LONG != 8
# error "configure found no strnlen or an unexpected long"
#endif

static int count_lines(const char *name)
{
  FILE *f = name ? fopen(name, "r") : stdin;
  int c, n = 0;
  if (!f) {
    perror(name);
    return 1;
  }
  while ((c = getc(f)) != EOF)
    n += c == '\n';
  printf("%d\n", n);
  return 0;
}

int main(int argc, char **argv)
{
  int upper = 0, lines = 0, i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (strcmp(argv[i], "-u") == 0)
      upper = 1;
    else if (strcmp(argv[i], "-l") == 0)
      lines = 1;
    else {
      fprintf(stderr, "tiny: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (lines)
    return count_lines(i < argc ? argv[i] : NULL);
  for (; i < argc; i++) {
    char buf[16];
    size_t len = strnlen(argv[i], sizeof buf - 1);
    memcpy(buf, argv[i], len);
    buf[len] = '\0';
    if (upper)
      caps(buf);
    puts(buf);
  }
  return 0;
}
