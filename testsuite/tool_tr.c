/* tr: copies standard input to standard output, translating the bytes of
 * SET1 into the corresponding bytes of SET2 (the last byte of SET2 repeats
 * when SET2 is shorter), or deleting them with -d. Sets may hold ranges
 * such as a-z. Sets are never expanded: each input byte is looked up in
 * SET1's pieces, and its position is looked up in SET2's.
 * program-args: --sym-args 1 2 3 --sym-stdin 1
 * expect-completed: 1301
 * expect-tests: 1301
 */
#include <stdio.h>
#include <string.h>

/* The piece of a set starting at `s`: a range "x-y" or a single byte. */
static int piece(const unsigned char *s, int *lo, int *hi) {
  if (s[1] == '-' && s[2] != '\0') {
    *lo = s[0];
    *hi = s[2];
    return 3;
  }
  *lo = *hi = s[0];
  return 1;
}

/* Checks the ranges of `set`; returns its length in bytes, or -1 when a
 * range's ends are out of order. */
static int set_length(const char *set) {
  const unsigned char *s = (const unsigned char *)set;
  int n = 0, lo, hi;
  while (*s) {
    s += piece(s, &lo, &hi);
    if (hi < lo)
      return -1;
    n += hi - lo + 1;
  }
  return n;
}

/* The position of `c` in `set`, or -1. */
static int position(const char *set, int c) {
  const unsigned char *s = (const unsigned char *)set;
  int n = 0, lo, hi;
  while (*s) {
    s += piece(s, &lo, &hi);
    if (lo <= c && c <= hi)
      return n + (c - lo);
    n += hi - lo + 1;
  }
  return -1;
}

/* The byte at position `k` of `set` (which has at least k + 1). */
static int byte_at(const char *set, int k) {
  const unsigned char *s = (const unsigned char *)set;
  int lo, hi;
  for (;;) {
    s += piece(s, &lo, &hi);
    if (k <= hi - lo)
      return lo + k;
    k -= hi - lo + 1;
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fputs("usage: tr SET1 SET2 | tr -d SET1\n", stderr);
    return 1;
  }
  int delete = strcmp(argv[1], "-d") == 0;
  const char *set1 = argv[delete ? 2 : 1], *set2 = argv[2];
  int n1 = set_length(set1), n2 = delete ? 0 : set_length(set2);
  if (n1 < 0 || n2 < 0) {
    fputs("tr: range endpoints out of order\n", stderr);
    return 1;
  }
  if (!delete && n2 == 0 && n1 > 0) {
    fputs("tr: SET2 must not be empty\n", stderr);
    return 1;
  }
  int c;
  while ((c = getchar()) != EOF) {
    int k = position(set1, c);
    if (k < 0)
      putchar(c);
    else if (!delete)
      putchar(byte_at(set2, k < n2 ? k : n2 - 1));
  }
  return 0;
}
