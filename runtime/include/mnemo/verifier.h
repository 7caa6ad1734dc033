/*
 * verifier.h: declarations of the SV-COMP input functions that mnemo treats
 * as symbolic inputs. SV-COMP programs declare these themselves; this header
 * is for hand-written programs that want the same interface.
 */
#ifndef MNEMO_VERIFIER_H
#define MNEMO_VERIFIER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);
unsigned int __VERIFIER_nondet_unsigned(void);
long __VERIFIER_nondet_long(void);
unsigned long __VERIFIER_nondet_ulong(void);
long long __VERIFIER_nondet_longlong(void);
unsigned long long __VERIFIER_nondet_ulonglong(void);
char __VERIFIER_nondet_char(void);
unsigned char __VERIFIER_nondet_uchar(void);
short __VERIFIER_nondet_short(void);
unsigned short __VERIFIER_nondet_ushort(void);
_Bool __VERIFIER_nondet_bool(void);
_Bool __VERIFIER_nondet__Bool(void);
size_t __VERIFIER_nondet_size_t(void);
unsigned int __VERIFIER_nondet_u32(void);
unsigned short __VERIFIER_nondet_u16(void);
unsigned char __VERIFIER_nondet_u8(void);
void *__VERIFIER_nondet_pointer(void);
float __VERIFIER_nondet_float(void);
double __VERIFIER_nondet_double(void);

/* Ends the path silently unless cond holds. */
void __VERIFIER_assume(int cond);

/* Reaching this is the error SV-COMP's reachability property asks about. */
void reach_error(void);
void __VERIFIER_error(void);

#ifdef __cplusplus
}
#endif

#endif /* MNEMO_VERIFIER_H */
