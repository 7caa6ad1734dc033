/* klee_get_errno(): the path's errno, which KLEE's POSIX runtime gives a
 * harness that cannot name the C library's own (the engine's C library is
 * musl, built into the program's bitcode). */
#include <errno.h>

int klee_get_errno(void) { return errno; }
