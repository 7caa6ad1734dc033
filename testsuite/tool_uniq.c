/* uniq: copies the lines of standard input, dropping each line equal to
 * the one before it; -c prefixes every line kept with its number of
 * repeats, -d prints only lines that were repeated.
 * program-args: --sym-args 0 1 2 --sym-stdin 4
 * expect-completed: 188
 * expect-tests: 188
 */
#include <stdio.h>
#include <string.h>

static int show_count, only_repeated;

static void emit(const char *line, int count) {
  if (only_repeated && count < 2)
    return;
  if (show_count)
    printf("%7d ", count);
  fputs(line, stdout);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-c") == 0)
      show_count = 1;
    else if (strcmp(argv[i], "-d") == 0)
      only_repeated = 1;
    else {
      fprintf(stderr, "uniq: unknown option '%s'\n", argv[i]);
      return 1;
    }
  }
  char prev[32], line[32];
  int count = 0;
  while (fgets(line, sizeof line, stdin) != NULL) {
    if (count > 0 && strcmp(line, prev) == 0) {
      count++;
      continue;
    }
    if (count > 0)
      emit(prev, count);
    strcpy(prev, line);
    count = 1;
  }
  if (count > 0)
    emit(prev, count);
  return 0;
}
