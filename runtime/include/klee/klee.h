/*
 * klee.h: the interface between a program under test and mnemo.
 *
 * The same header serves two builds of one program: the bitcode that mnemo
 * executes symbolically (the engine implements these functions itself) and
 * the native build used to replay a test (libmnemo-replay.a implements them
 * by reading the test's inputs from the file named by KTEST_FILE).
 */
#ifndef MNEMO_KLEE_H
#define MNEMO_KLEE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks nbytes at addr as a fresh symbolic input called name. */
void klee_make_symbolic(void *addr, size_t nbytes, const char *name);

/* Ends the path silently (no test) unless condition holds on it. */
void klee_assume(uintptr_t condition);

/* A symbolic int in [begin, end). */
int klee_range(int begin, int end, const char *name);

/* A symbolic int with no constraint. */
int klee_int(const char *name);

/* Ends the path with an error of kind "user" (or the kind named by suffix). */
void klee_report_error(const char *file, int line, const char *message,
                       const char *suffix) __attribute__((noreturn));

/* Ends the path without producing a test. */
void klee_silent_exit(int status) __attribute__((noreturn));

/* Prints a warning through the engine (or on stderr when replaying). */
void klee_warning(const char *message);

/* Nonzero when n is symbolic on the current path (always 0 natively). */
unsigned klee_is_symbolic(uintptr_t n);

/* Declared as the C library declares it (musl's under the engine, glibc's
 * natively), so that klee_assert fails exactly like assert(): the engine
 * reports kind "assert", natively the C library aborts. */
#ifdef __GLIBC__
void __assert_fail(const char *assertion, const char *file, unsigned int line,
                   const char *function) __attribute__((noreturn));
#else
void __assert_fail(const char *assertion, const char *file, int line,
                   const char *function) __attribute__((noreturn));
#endif

#define klee_assert(expr)                                                    \
  ((expr) ? (void)0 : __assert_fail(#expr, __FILE__, __LINE__, __func__))

#ifdef __cplusplus
}
#endif

#endif /* MNEMO_KLEE_H */
