/* Nondet inputs of several SV-COMP types (uint, char, uchar, bool), each a
 * separate symbolic object; one branch per input.
 * Four independent two-way branches: 2^4 paths.
 * expect-completed: 16
 * expect-tests: 16
 */
extern unsigned int __VERIFIER_nondet_uint(void);
extern char __VERIFIER_nondet_char(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern _Bool __VERIFIER_nondet_bool(void);

int main(void) {
  unsigned u = __VERIFIER_nondet_uint();
  char c = __VERIFIER_nondet_char();
  unsigned char uc = __VERIFIER_nondet_uchar();
  _Bool b = __VERIFIER_nondet_bool();
  int r = 0;
  if (u > 4000000000u)
    r |= 1;
  if (c < 0)
    r |= 2;
  if (uc == 200)
    r |= 4;
  if (b)
    r |= 8;
  return r;
}
