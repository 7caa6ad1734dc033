/* basename: prints NAME with any leading directories removed, and SUFFIX
 * removed from its end when given and not the whole remaining name.
 * Trailing slashes are ignored; a name made only of slashes is "/".
 * program-args: --sym-args 0 2 3
 * expect-completed: 152
 * expect-tests: 152
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fputs("usage: basename NAME [SUFFIX]\n", stderr);
    return 1;
  }
  size_t len = strlen(argv[1]);
  char name[len + 1];
  memcpy(name, argv[1], len + 1);
  while (len > 1 && name[len - 1] == '/')
    name[--len] = '\0';
  if (len == 1 && name[0] == '/') {
    puts("/");
    return 0;
  }
  char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  if (argc == 3) {
    size_t blen = strlen(base), slen = strlen(argv[2]);
    if (slen < blen && strcmp(base + blen - slen, argv[2]) == 0)
      base[blen - slen] = '\0';
  }
  puts(base);
  return 0;
}
