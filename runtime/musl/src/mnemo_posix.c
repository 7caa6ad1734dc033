/* The start of a run whose program arguments hold KLEE's POSIX options
 * (and mnemo's `--env NAME=VALUE`, a variable of the program's
 * environment): the options are replaced by what they stand for before
 * main, with the
 * symbolic objects made in the order, names and sizes KLEE's
 * klee_init_env and klee_init_fds give them (see src/exec/posix.rs), so
 * that KLEE's klee-replay, which expands the same command line again,
 * reads a test's objects in the order they were made. The engine checked
 * the options before the run; what is left to fail here is memory. */
#include "mnemo_fs.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int, char **, char **);

static int is_option(const char *arg, const char *name) {
  if (arg[0] != '-')
    return 0;
  arg += arg[1] == '-' ? 2 : 1;
  return strcmp(arg, name) == 0;
}

static unsigned number(const char *s) {
  unsigned n = 0;
  while (*s >= '0' && *s <= '9')
    n = n * 10 + (*s++ - '0');
  return n;
}

/* A symbolic argument of at most `len` characters: `len + 1` symbolic
 * bytes, the last one made a terminator. */
static char *sym_arg(unsigned len, unsigned index) {
  char name[6] = {'a', 'r', 'g', '0' + index / 10, '0' + index % 10, 0};
  char *s = malloc(len + 1);
  klee_make_symbolic(s, len + 1, name);
  s[len] = 0;
  return s;
}

/* Makes the symbolic files, stdin, the failures' indices, stdout and the
 * model's version. */
static void make_files(unsigned files, unsigned file_len, unsigned stdin_len,
                       unsigned max_fail, int sym_stdout) {
  for (unsigned k = 0; k < files; k++) {
    char *path = malloc(2);
    char data[7] = {'A' + k, '-', 'd', 'a', 't', 'a', 0};
    char stat[12] = {'A' + k, '-', 'd', 'a', 't', 'a', '-', 's', 't', 'a', 't', 0};
    path[0] = 'A' + k, path[1] = 0;
    __mnemo_new_file(path, file_len, data, stat);
  }
  if (stdin_len) {
    struct mnemo_desc *in = &__mnemo_std[0];
    in->kind = MNEMO_FILE;
    in->file = __mnemo_new_file(0, stdin_len, "stdin", "stdin-stat");
    /* A replay gives stdin as a file where its status says regular file,
     * a terminal where it says character device, else a pipe: a stdin of
     * another type (a socket, a block device) is one no replay gives.
     * One condition, not three, so that the assumption forks nothing. */
    unsigned mode = in->file->st->st_mode;
    klee_assume(S_ISREG(mode) | S_ISFIFO(mode) | S_ISCHR(mode));
  }
  if (max_fail)
    __mnemo_failures_start(max_fail);
  if (sym_stdout) {
    struct mnemo_file *out = __mnemo_new_file(0, 1024, "stdout", "stdout-stat");
    __mnemo_std[1].file = out;
    /* A replay gives stdout as a terminal or a pipe. Not a regular file:
     * the model's stdout is a stream, which a file's offset (lseek, pwrite)
     * would contradict. */
    unsigned mode = out->st->st_mode;
    klee_assume(S_ISFIFO(mode) | S_ISCHR(mode));
    /* A replay gives stdout a file of its own, never stdin's: two
     * statuses with one device and inode would make stdout stdin's file
     * ("cat: -: input file is output file"), which no replay can give.
     * (An empty stdin is a pipe on device 0, which stdout's is not.) */
    if (stdin_len) {
      struct stat *in = __mnemo_std[0].file->st;
      klee_assume((in->st_dev != out->st->st_dev) | (in->st_ino != out->st->st_ino));
    }
  }
  unsigned version;
  klee_make_symbolic(&version, sizeof version, "model_version");
  klee_assume(version == 1);
}

/* Whether variable `a`'s name sorts before `b`'s, byte by byte. */
static int name_before(const char *a, const char *b) {
  for (; *a != '=' && *a == *b; a++, b++)
    ;
  unsigned char x = *a == '=' ? 0 : *a, y = *b == '=' ? 0 : *b;
  return x < y;
}

int __mnemo_posix_start(int argc, char **argv, int main_params) {
  char **out = malloc((argc + 100 + 1) * sizeof *out);
  /* `--env NAME=VALUE` options make the environment. */
  char **env = malloc((argc + 1) * sizeof *env);
  unsigned files = 0, file_len = 0, stdin_len = 0, sym_args = 0, max_fail = 0;
  int sym_stdout = 0, n = 0, vars = 0;
  /* argv[0] is the program's name, never an option. */
  for (int k = 0; k < argc;) {
    const char *a = argv[k];
    if (k > 0 && is_option(a, "sym-arg")) {
      out[n++] = sym_arg(number(argv[k + 1]), sym_args++);
      k += 2;
    } else if (k > 0 && is_option(a, "sym-args")) {
      unsigned min = number(argv[k + 1]), max = number(argv[k + 2]);
      unsigned len = number(argv[k + 3]);
      int count = min == max ? (int)min : klee_range(min, max + 1, "n_args");
      for (int i = 0; i < count; i++)
        out[n++] = sym_arg(len, sym_args++);
      k += 4;
    } else if (k > 0 && is_option(a, "sym-files")) {
      files = number(argv[k + 1]);
      file_len = number(argv[k + 2]);
      k += 3;
    } else if (k > 0 && is_option(a, "sym-stdin")) {
      stdin_len = number(argv[k + 1]);
      k += 2;
    } else if (k > 0 && is_option(a, "max-fail")) {
      max_fail = number(argv[k + 1]);
      k += 2;
    } else if (k > 0 && is_option(a, "save-all-writes")) {
      /* Every write to a symbolic file is kept, past its end too. */
      k += 1;
    } else if (k > 0 && is_option(a, "fd-fail")) {
      max_fail = 1;
      k += 1;
    } else if (k > 0 && is_option(a, "sym-stdout")) {
      sym_stdout = 1;
      k += 1;
    } else if (k > 0 && is_option(a, "env")) {
      /* Kept sorted by name, as a replay's environment is (the engine
       * checked that no name comes twice). */
      int at = vars++;
      for (; at > 0 && name_before(argv[k + 1], env[at - 1]); at--)
        env[at] = env[at - 1];
      env[at] = argv[k + 1];
      k += 2;
    } else {
      out[n++] = argv[k++];
    }
  }
  out[n] = 0;
  env[vars] = 0;
  make_files(files, file_len, stdin_len, max_fail, sym_stdout);
  /* The environment holds what `--env` gave, often nothing, but there is
   * one: C programs walk `environ` without checking it for null, as the
   * kernel never leaves it so (musl's startup sets it from the stack,
   * which this start skips). */
  __environ = env;
  /* main as the program declares it: the engine says how many parameters
   * it has. */
  switch (main_params) {
  case 0: return ((int (*)(void))main)();
  case 1: return ((int (*)(int))main)(n);
  case 2: return ((int (*)(int, char **))main)(n, out);
  default: return main(n, out, env);
  }
}
