/*
 * Included first in every file of the bitcode build (see the Makefile).
 *
 * musl has no rawmemchr, so gnulib compiles its own, which reads the
 * buffer one aligned 8-byte word at a time: the last word may run up to
 * seven bytes past the end of the block. Natively that cannot fault (an
 * aligned word never crosses a page), and the ASan build never runs it
 * (glibc has rawmemchr); the engine, which checks every byte a load
 * reads, would report each such load as an out-of-bounds pointer. The
 * bitcode build is therefore configured as if the C library had
 * rawmemchr, and gets it here, reading one byte at a time.
 */
#ifndef MNEMO_BITCODE_RAWMEMCHR_H
#define MNEMO_BITCODE_RAWMEMCHR_H

static inline void *rawmemchr(const void *s, int c) {
  const unsigned char *p = s;
  while (*p != (unsigned char)c)
    p++;
  return (void *)p;
}

#endif
