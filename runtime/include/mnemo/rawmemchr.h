/*
 * A byte-at-a-time rawmemchr for the bitcode of a project that uses
 * gnulib: `-include mnemo/rawmemchr.h` in the build's CFLAGS (the
 * runtime's include directory is on `mnemo cc-project`'s path), with the
 * project configured as if the C library had rawmemchr
 * (`ac_cv_func_rawmemchr=yes`).
 *
 * musl has no rawmemchr, so gnulib compiles its own, which reads the
 * buffer one aligned 8-byte word at a time: the last word may run up to
 * seven bytes past the end of the block. Natively that cannot fault (an
 * aligned word never crosses a page), and an ASan build against glibc
 * never runs it (glibc has rawmemchr); the engine, which checks every
 * byte a load reads, reports each such load as an out-of-bounds pointer
 * (in a minute of GNU grep, 8,006 paths). Included only when building,
 * not while configuring: configure's checks read what the preprocessor
 * prints.
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
