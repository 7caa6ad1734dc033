/* A getopt_long driver: a greeting tool with -v/--verbose, -n/--name NAME,
 * --count=N (a digit, required argument) and -h/--help. It reports unknown
 * options and missing arguments as getopt_long does, and exits 2 for them.
 * program-args: --sym-args 0 2 4
 * expect-completed: 714
 * expect-tests: 714
 */
#include <getopt.h>
#include <stdio.h>

static const struct option options[] = {
    {"verbose", no_argument, NULL, 'v'},
    {"name", required_argument, NULL, 'n'},
    {"count", required_argument, NULL, 'c'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int main(int argc, char **argv) {
  int verbose = 0, count = 1, opt;
  const char *name = "world";
  opterr = 0;
  while ((opt = getopt_long(argc, argv, "vn:h", options, NULL)) != -1) {
    switch (opt) {
    case 'v':
      verbose = 1;
      break;
    case 'n':
      name = optarg;
      break;
    case 'c':
      if (optarg[0] < '0' || optarg[0] > '9' || optarg[1] != '\0') {
        fprintf(stderr, "greet: bad count '%s'\n", optarg);
        return 2;
      }
      count = optarg[0] - '0';
      break;
    case 'h':
      puts("usage: greet [-v] [-n NAME] [--count=N]");
      return 0;
    default:
      fputs("greet: bad option\n", stderr);
      return 2;
    }
  }
  if (verbose)
    printf("greeting %d time(s), %d operand(s)\n", count, argc - optind);
  for (int k = 0; k < count; k++)
    printf("hello, %s\n", name);
  return 0;
}
