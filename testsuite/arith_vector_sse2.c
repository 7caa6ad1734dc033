/* SSE2 intrinsics at -O0 on a symbolic 16-byte block: a search for a byte
 * as string functions do it (compare all 16 bytes, take the mask of the
 * equal ones), sign masks and shifts by an immediate, each checked against
 * the scalar code it stands for (asserts that always hold: no fork). Forks:
 * byte 15 negative or not (2), then no 'x' in the block, or a first 'x' in
 * the low or the high half (2) times one 'x' or more (2): 2 x (1 + 4).
 * expect-completed: 10
 * expect-tests: 10
 */
#include <assert.h>
#include <emmintrin.h>
#include <klee/klee.h>

int main(void) {
  char buf[16];
  klee_make_symbolic(buf, sizeof buf, "buf");
  __m128i v = _mm_loadu_si128((const __m128i *)buf);
  int signs = _mm_movemask_epi8(v);
  assert(((signs >> 3) & 1) == (buf[3] < 0));
  assert(_mm_cvtsi128_si32(_mm_srli_epi32(v, 24)) == (unsigned char)buf[3]);
  assert(_mm_extract_epi16(_mm_srai_epi16(v, 15), 1) == (-(buf[3] < 0) & 0xffff));
  assert(_mm_cvtsi128_si32(_mm_slli_epi64(v, 64)) == 0);
  assert(_mm_cvtsi128_si32(_mm_slli_epi32(v, 8)) == (int)((unsigned)*(int *)buf << 8));
  int r = 0;
  if (signs & 0x8000)
    r |= 1;
  int m = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('x')));
  if (m == 0)
    return r;
  if (__builtin_ctz(m) < 8)
    r |= 2;
  if (m & (m - 1))
    r |= 4;
  return r | 8;
}
