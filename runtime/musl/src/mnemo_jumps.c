/* The signal mask's part of sigsetjmp and siglongjmp. The engine does the
 * jumps (src/exec/jumps.rs); where sigsetjmp is asked to keep the mask, it
 * calls the first function below as sigsetjmp returns 0, and a jump back
 * to that buffer calls the second as sigsetjmp returns again, as musl's
 * own sigsetjmp does on its way out. So a handler that leaves with
 * siglongjmp (or longjmp, which both C libraries let restore a mask that
 * sigsetjmp kept) unblocks its signal again, and a signal that came while
 * it was blocked is delivered then. The load links this file wherever a
 * program calls sigsetjmp (src/ir/load.rs). */
#include <setjmp.h>
#include <signal.h>

void __mnemo_sigjmp_save(sigjmp_buf env) {
  sigprocmask(SIG_BLOCK, 0, (sigset_t *)env->__ss);
}

void __mnemo_sigjmp_restore(sigjmp_buf env) {
  sigprocmask(SIG_SETMASK, (sigset_t *)env->__ss, 0);
}
