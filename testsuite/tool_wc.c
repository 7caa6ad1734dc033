/* wc: counts the lines, words and bytes of a file or of standard input;
 * -l, -w and -c choose which counts to print (all three by default).
 * Reads with read(2) in small blocks, so a file's bytes come through the
 * system-call model directly. The symbolic file may be a directory, which
 * read(2) refuses.
 * program-args: --sym-args 0 2 2 --sym-files 1 2 --sym-stdin 2
 * expect-completed: 358
 * expect-tests: 358
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int want_l = 0, want_w = 0, want_c = 0, i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
    for (const char *p = argv[i] + 1; *p; p++) {
      switch (*p) {
      case 'l':
        want_l = 1;
        break;
      case 'w':
        want_w = 1;
        break;
      case 'c':
        want_c = 1;
        break;
      default:
        fprintf(stderr, "wc: invalid option -- '%c'\n", *p);
        return 1;
      }
    }
  }
  if (!want_l && !want_w && !want_c)
    want_l = want_w = want_c = 1;
  int fd = 0;
  if (i < argc) {
    fd = open(argv[i], O_RDONLY);
    if (fd < 0) {
      fprintf(stderr, "wc: %s: No such file\n", argv[i]);
      return 1;
    }
  }
  unsigned long lines = 0, words = 0, bytes = 0;
  int in_word = 0;
  char buf[4];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t k = 0; k < n; k++) {
      char c = buf[k];
      bytes++;
      if (c == '\n')
        lines++;
      if (c == ' ' || c == '\n' || c == '\t') {
        in_word = 0;
      } else if (!in_word) {
        in_word = 1;
        words++;
      }
    }
  }
  if (want_l)
    printf("%lu ", lines);
  if (want_w)
    printf("%lu ", words);
  if (want_c)
    printf("%lu ", bytes);
  printf("%s\n", i < argc ? argv[i] : "");
  return 0;
}
