/* cut -d D -f N: prints field N (counted from 1) of every line of standard
 * input, fields being separated by the byte D (a tab by default). A line
 * without the delimiter is printed whole, as cut does without -s.
 * program-args: --sym-arg 2 --sym-arg 1 -f --sym-arg 1 --sym-stdin 2
 * expect-completed: 272
 * expect-tests: 272
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  char delim = '\t';
  int field = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-d") == 0 && i + 1 < argc) {
      if (strlen(argv[++i]) != 1) {
        fputs("cut: the delimiter must be a single character\n", stderr);
        return 1;
      }
      delim = argv[i][0];
    } else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc) {
      field = atoi(argv[++i]);
    } else {
      fprintf(stderr, "cut: unexpected argument '%s'\n", argv[i]);
      return 1;
    }
  }
  if (field < 1) {
    fputs("cut: fields are numbered from 1\n", stderr);
    return 1;
  }
  char line[64];
  while (fgets(line, sizeof line, stdin) != NULL) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (strchr(line, delim) == NULL) {
      puts(line);
      continue;
    }
    char *start = line;
    for (int f = 1; f < field && start != NULL; f++) {
      start = strchr(start, delim);
      if (start)
        start++;
    }
    if (start != NULL) {
      char *end = strchr(start, delim);
      if (end)
        *end = '\0';
      fputs(start, stdout);
    }
    putchar('\n');
  }
  return 0;
}
