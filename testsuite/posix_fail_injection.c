/* KLEE's failure injection: with `--fd-fail` one system call of the
 * program may fail, and every read, write, close and getcwd it makes is a
 * place where it does (EIO; ENOENT for getcwd). The program reads its
 * symbolic file through stdio, closes it, asks for its directory and
 * writes with write(2). Where A is a regular file, 6 paths: the read of
 * its 2 bytes fails (1), the read of its end fails, after which fread
 * still has its 2 bytes (0), close fails (2), getcwd fails (3), write
 * fails (4), or none does (0). Where A's status says directory, the first
 * read fails with EIO, or with EISDIR and then the exit's flush of the
 * message is a write that fails or not: 3 paths, all exiting 1. Each is
 * replayed natively with the same call failed (the replay counts the
 * native program's system calls from main on, musl's readv and glibc's
 * read alike) and the same output. The program's own input, made before
 * any call, decides nothing: natively, the replay library has read the
 * test before main, so that its reads are not counted as the program's.
 * program-args: --sym-files 1 2 --fd-fail
 * expect-completed: 9
 * expect-tests: 9
 */
#include <errno.h>
#include <klee/klee.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *err(void) {
  return errno == EIO ? "EIO" : errno == ENOENT ? "ENOENT" : "other";
}

int main(void) {
  int unused;
  klee_make_symbolic(&unused, sizeof unused, "unused");
  FILE *f = fopen("A", "r");
  if (!f)
    return 9;
  char line[8];
  /* No newline can end the line early: the file is read to its end. */
  if (fread(line, 1, sizeof line, f) != 2) {
    printf("read: %s\n", ferror(f) ? err() : "short");
    return 1;
  }
  if (fclose(f) != 0) {
    printf("close: %s\n", err());
    return 2;
  }
  char cwd[256];
  if (!getcwd(cwd, sizeof cwd)) {
    printf("getcwd: %s\n", err());
    return 3;
  }
  if (write(1, "done\n", 5) != 5) {
    printf("write: %s\n", err());
    return 4;
  }
  return 0;
}
