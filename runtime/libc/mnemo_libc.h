/*
 * Shared declarations of mnemo's runtime C library.
 *
 * The runtime is linked into every program as bitcode and executed by the
 * symbolic interpreter. It includes glibc's own headers so that every
 * definition is checked against the prototype the program was compiled
 * with; a mismatch would otherwise only show up as a wrong call at run time.
 */
#ifndef MNEMO_LIBC_H
#define MNEMO_LIBC_H

/* Keep glibc's ctype.h from turning isalpha() & co. into macros, which
 * would make the definitions in ctype.c unparsable. */
#define __NO_CTYPE 1

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A program's own definition must win when the runtime is linked in. */
#define MNEMO_WEAK __attribute__((weak))

/* The only output primitive: the engine implements it natively (and the
 * native self-test supplies its own). Never defined by the runtime. */
ssize_t write(int fd, const void *buf, size_t count);

/* Also native: v itself when it is concrete, otherwise one value v can take
 * on the current path, without constraining the path. Output formatting
 * uses it so that printing a symbolic value shows an example instead of
 * forking the path once per digit. */
unsigned long long mnemo_example(unsigned long long v);

#endif /* MNEMO_LIBC_H */
