/* echo: prints its arguments separated by spaces; -n drops the newline,
 * -e interprets backslash escapes (\n, \t, \\, \c stops all output), -E
 * turns them off again. Options are only recognized before the first
 * other argument, as in GNU echo.
 * program-args: --sym-args 0 2 2
 * expect-completed: 101
 * expect-tests: 101
 */
#include <stdio.h>
#include <string.h>

/* Is `s` a cluster of echo's option letters ("-n", "-ne", ...)? */
static int is_option(const char *s) {
  if (s[0] != '-' || s[1] == '\0')
    return 0;
  for (const char *p = s + 1; *p; p++)
    if (*p != 'n' && *p != 'e' && *p != 'E')
      return 0;
  return 1;
}

/* Prints `s`, interpreting escapes; returns 0 when \c ends the output. */
static int put_escaped(const char *s) {
  for (; *s; s++) {
    if (*s != '\\' || s[1] == '\0') {
      putchar(*s);
      continue;
    }
    s++;
    switch (*s) {
    case 'n':
      putchar('\n');
      break;
    case 't':
      putchar('\t');
      break;
    case '\\':
      putchar('\\');
      break;
    case 'c':
      return 0;
    default:
      putchar('\\');
      putchar(*s);
    }
  }
  return 1;
}

int main(int argc, char **argv) {
  int newline = 1, escapes = 0, i = 1;
  for (; i < argc && is_option(argv[i]); i++)
    for (const char *p = argv[i] + 1; *p; p++) {
      if (*p == 'n')
        newline = 0;
      else
        escapes = *p == 'e';
    }
  for (int first = i; i < argc; i++) {
    if (i > first)
      putchar(' ');
    if (!escapes)
      fputs(argv[i], stdout);
    else if (!put_escaped(argv[i]))
      return 0;
  }
  if (newline)
    putchar('\n');
  return 0;
}
