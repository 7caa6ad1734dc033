/* Atomics without inline assembly, which the engine does not interpret. A
 * run has one thread, so a compare-and-swap is a load and a store; musl's
 * atomic.h builds every other atomic operation on this one. */
#define a_cas a_cas
static inline int a_cas(volatile int *p, int t, int s) {
  int old = *p;
  if (old == t)
    *p = s;
  return old;
}

#define a_cas_p a_cas_p
static inline void *a_cas_p(volatile void *p, void *t, void *s) {
  void *volatile *q = (void *volatile *)p;
  void *old = *q;
  if (old == t)
    *q = s;
  return old;
}

#define a_barrier a_barrier
static inline void a_barrier(void) {}

#define a_spin a_spin
static inline void a_spin(void) {}

#define a_crash a_crash
static inline void a_crash(void) { __builtin_trap(); }
