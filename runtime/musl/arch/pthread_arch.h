/* The thread pointer without `%fs`: the one thread's descriptor is a
 * global (see ../src/mnemo_self.c), so errno, the locale and the rest of
 * musl's per-thread state work with no start-up code. */
struct __pthread;
extern struct __pthread __mnemo_self;

static inline uintptr_t __get_tp(void) { return (uintptr_t)&__mnemo_self; }

#define MC_PC gregs[REG_RIP]
