/* The descriptor of the program's main thread, initialised statically as
 * musl's start-up code would set it (its own address, the process's id, the C locale, an
 * empty list of robust mutexes held, a vector of thread-local modules
 * that counts none: the engine keeps thread-locals itself). */
#include "mnemo_fs.h"
#include "pthread_impl.h"

static uintptr_t no_modules[1];

struct pthread __mnemo_self = {
    .self = &__mnemo_self,
    .dtv = no_modules,
    .prev = &__mnemo_self,
    .next = &__mnemo_self,
    .locale = &libc.global_locale,
    .detach_state = DT_JOINABLE,
    .tid = MNEMO_PID,
    .robust_list.head = &__mnemo_self.robust_list.head,
};
