/* A tool reading a configuration file named on its command line: lines of
 * "key=value" where the key is "m" (mode: "f" for fast or "s" for safe) or
 * "l" (level: one digit); '#' starts a comment line. It prints the
 * settings, or names the first bad line and exits 1; a missing file exits 2.
 * The symbolic file may be a directory, which reads as no line.
 * program-args: --sym-args 0 2 1 --sym-files 1 5
 * expect-completed: 547
 * expect-tests: 547
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fputs("usage: config FILE\n", stderr);
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (f == NULL) {
    perror(argv[1]);
    return 2;
  }
  char line[8];
  int line_no = 0, level = 0;
  const char *mode = "safe";
  while (fgets(line, sizeof line, f) != NULL) {
    line_no++;
    line[strcspn(line, "\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0')
      continue;
    char *eq = strchr(line, '=');
    if (eq == NULL) {
      fprintf(stderr, "%s:%d: expected key=value\n", argv[1], line_no);
      return 1;
    }
    *eq = '\0';
    const char *value = eq + 1;
    if (strcmp(line, "m") == 0 && (strcmp(value, "f") == 0 || strcmp(value, "s") == 0)) {
      mode = value[0] == 'f' ? "fast" : "safe";
    } else if (strcmp(line, "l") == 0 && value[0] >= '0' && value[0] <= '9' && value[1] == '\0') {
      level = value[0] - '0';
    } else {
      fprintf(stderr, "%s:%d: bad setting '%s'\n", argv[1], line_no, line);
      return 1;
    }
  }
  fclose(f);
  printf("mode=%s level=%d\n", mode, level);
  return 0;
}
