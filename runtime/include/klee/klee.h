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

/* Like klee_warning, but each message only the first time. */
void klee_warning_once(const char *message);

/* Ends the path with an error of kind "abort" (natively: abort()). */
void klee_abort(void) __attribute__((noreturn));

/* A value the path allows for the argument, to which the path is fixed
 * from then on (natively: the argument itself). */
int32_t klee_get_value_i32(int32_t value);
int64_t klee_get_value_i64(int64_t value);
long klee_get_valuel(long value);
long long klee_get_valuell(long long value);
float klee_get_valuef(float value);
double klee_get_valued(double value);

/* Asks that the path's test meet condition where the path allows: never a
 * constraint, so no path changes; the conditions are met in the order
 * given, each as far as it fits the path and those before it (natively:
 * nothing). The object is ignored, as in KLEE. */
void klee_prefer_cex(void *object, uintptr_t condition);

/* Prints message and the expression of the value after it (natively: the
 * message only, the value's type being unknown to a variadic function). */
void klee_print_expr(const char *message, ...);

/* Prints the value, or the range the path allows it (natively: the value). */
void klee_print_range(const char *name, int value);

/* The size of the object ptr points into; an error of kind "ptr" (or
 * "null") if it points into none. Natively there is no answer: the replay
 * fails (status 77), so call it only where klee_is_replay() is 0. */
size_t klee_get_obj_size(void *ptr);

/* An error of kind "ptr" ("null", "use-after-free") unless the size bytes
 * at address lie in one live object (natively: AddressSanitizer's verdict
 * on the bytes, where the replay build has it). */
void klee_check_memory_access(const void *address, size_t size);

/* 0 under the engine, 1 in a native replay. */
unsigned klee_is_replay(void);

/* Prints the call stack on stderr. */
void klee_stack_trace(void);

/* KLEE's state-merging hints: merging is an optimization only, and mnemo
 * does without it (both do nothing). */
void klee_open_merge(void);
void klee_close_merge(void);

/* An input called "klee_choose" below n: as in KLEE, a path where it
 * cannot be ends silently (natively: the test's value, which must be
 * below n). */
uintptr_t klee_choose(uintptr_t n);

/* With 0, the path forks no more until called with another value: at a
 * branch both ways of which its inputs allow, it takes the first way its
 * path allows (natively: nothing to do). */
void klee_set_forking(unsigned enable);

/* The C library's errno on the path (natively: errno). */
int klee_get_errno(void);

/* KLEE marks the object as a global for its messages: nothing to do. */
void klee_mark_global(void *object);

/* A zeroed object of nbytes at addr, an address the program names (a
 * device's registers): an error of kind "user" where it would overlap
 * another object, lie in the null page, or where the engine keeps its own
 * (the functions' addresses, the heap and above). Natively the pages are
 * mapped at addr; the replay fails (status 77) if they are not free. */
void klee_define_fixed_object(void *addr, size_t nbytes);

/* klee_prefer_cex by the name KLEE's POSIX runtime gives it. */
void klee_posix_prefer_cex(void *object, uintptr_t condition);

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
