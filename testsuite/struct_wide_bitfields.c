/* Bitfields in runs wider than 128 bits, which clang reads and writes as
 * one integer of the run's size: eight fields of a packed struct (149 bits
 * in an i152) and three 60-bit fields (an i192). Fields are read with their
 * sign, written back from other fields, compared and printed, so a native
 * replay checks each bit's place. Forks: g negative or not (2) x f over
 * 2^29 or not (2) x a equal to -5 or not (2), then d equal to 12345 fails
 * the assertion on one side of each; the other side forks on whether y * 3
 * wraps past 60 bits (2): 8 errors and 16 exits.
 * expect-completed: 16
 * expect-error: assert 54 8
 * expect-tests: 24
 */
#include <assert.h>
#include <klee/klee.h>

#pragma pack(push, 1)
struct packed {
  signed a : 29;
  signed b : 30;
  unsigned c : 8;
  signed d : 20;
  signed e : 19;
  unsigned f : 30;
  signed g : 4;
  unsigned h : 9;
};
#pragma pack(pop)

struct flags {
  unsigned long long x : 60;
  unsigned long long y : 60;
  unsigned long long z : 60;
};

/* Bits at .. at + n of the bytes at s, as the x86-64 layout numbers them. */
static unsigned bits(const void *s, unsigned at, unsigned n) {
  const unsigned char *b = s;
  unsigned v = 0;
  for (unsigned i = 0; i < n; i++)
    v |= (unsigned)(b[(at + i) / 8] >> ((at + i) % 8) & 1) << i;
  return v;
}

int main(void) {
  struct packed p;
  klee_make_symbolic(&p, sizeof p, "p");
  int r = 0;
  if (p.g < 0)
    r |= 1;
  if (p.f > 0x20000000u)
    r |= 2;
  if (p.a == -5)
    r |= 4;
  assert(p.d != 12345);
  /* e is 19 bits: it keeps b's low 19 bits, with bit 18 as its sign. */
  p.e = p.b;
  assert(p.e == (p.b << 13) >> 13);
  p.h = p.c + 300;
  assert(p.h == ((p.c + 300) & 511));
  struct flags fl = {0};
  fl.x = ~0ull;
  fl.y = (unsigned long long)p.f << 29 | p.h;
  fl.z = fl.y * 3;
  assert(fl.x == (1ull << 60) - 1 && (fl.y >> 29) == p.f);
  if (fl.z > fl.y)
    r |= 8;
  /* The fields written sit where the layout puts them: e at bits 87..105,
   * h at bits 140..148, counted from the first byte's low bit. */
  assert(bits(&p, 87, 19) == ((unsigned)p.b & 0x7ffff));
  assert(bits(&p, 140, 9) == ((p.c + 300u) & 511));
  return r;
}
