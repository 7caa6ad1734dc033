/* The thread pointer without `%fs`: the running thread's descriptor is
 * a global's value (../src/mnemo_thread.c), the main thread's descriptor
 * a global itself (../src/mnemo_self.c), so errno, the locale and the
 * rest of musl's per-thread state work with no start-up code. */
struct __pthread;
extern struct __pthread *__mnemo_tp;

static inline uintptr_t __get_tp(void) { return (uintptr_t)__mnemo_tp; }

#define MC_PC gregs[REG_RIP]
