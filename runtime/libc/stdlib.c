/*
 * stdlib.h: number parsing, sorting and searching, glibc's rand.
 * malloc, free, exit and abort are not here: the engine models them.
 */
#include "mnemo_libc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

static int is_space(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static int digit_value(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z')
    return c - 'A' + 10;
  return 99;
}

/* The part common to the strto* functions: whitespace, sign, base prefix
 * and digits. Returns the magnitude (saturated at ULLONG_MAX, with
 * *overflow set), whether a '-' was seen, and where parsing stopped; when
 * no digit is found *end is the start of the string, as C requires. */
static unsigned long long parse_magnitude(const char *nptr, char **end,
                                          int base, int *negative,
                                          int *overflow) {
  const char *s = nptr;
  unsigned long long value = 0;
  int any = 0;
  *negative = 0;
  *overflow = 0;
  if (base < 0 || base == 1 || base > 36) {
    errno = EINVAL;
    if (end != NULL)
      *end = (char *)nptr;
    return 0;
  }
  while (is_space((unsigned char)*s))
    s++;
  if (*s == '-') {
    *negative = 1;
    s++;
  } else if (*s == '+') {
    s++;
  }
  if ((base == 0 || base == 16) && s[0] == '0' &&
      (s[1] == 'x' || s[1] == 'X') && digit_value((unsigned char)s[2]) < 16) {
    s += 2;
    base = 16;
  } else if (base == 0) {
    base = s[0] == '0' ? 8 : 10;
  }
  for (;; s++) {
    int d = digit_value((unsigned char)*s);
    if (d >= base)
      break;
    any = 1;
    if (value > (ULLONG_MAX - (unsigned)d) / (unsigned)base) {
      *overflow = 1;
      value = ULLONG_MAX;
    } else if (!*overflow) {
      value = value * (unsigned)base + (unsigned)d;
    }
  }
  if (end != NULL)
    *end = (char *)(any ? s : nptr);
  return value;
}

static long long signed_result(unsigned long long mag, int negative,
                               int overflow, long long min, long long max) {
  if (negative) {
    if (overflow || mag > (unsigned long long)max + 1) {
      errno = ERANGE;
      return min;
    }
    return mag == (unsigned long long)max + 1 ? min : -(long long)mag;
  }
  if (overflow || mag > (unsigned long long)max) {
    errno = ERANGE;
    return max;
  }
  return (long long)mag;
}

static unsigned long long unsigned_result(unsigned long long mag,
                                          int negative, int overflow,
                                          unsigned long long max) {
  if (overflow || mag > max) {
    errno = ERANGE;
    return max;
  }
  /* C defines "-1" as the negation in the unsigned type. */
  return negative ? (max - mag + 1) & max : mag;
}

MNEMO_WEAK long strtol(const char *restrict nptr, char **restrict end,
                       int base) {
  int neg, ovf;
  unsigned long long mag = parse_magnitude(nptr, end, base, &neg, &ovf);
  return (long)signed_result(mag, neg, ovf, LONG_MIN, LONG_MAX);
}

MNEMO_WEAK long long strtoll(const char *restrict nptr, char **restrict end,
                             int base) {
  int neg, ovf;
  unsigned long long mag = parse_magnitude(nptr, end, base, &neg, &ovf);
  return signed_result(mag, neg, ovf, LLONG_MIN, LLONG_MAX);
}

MNEMO_WEAK unsigned long strtoul(const char *restrict nptr,
                                 char **restrict end, int base) {
  int neg, ovf;
  unsigned long long mag = parse_magnitude(nptr, end, base, &neg, &ovf);
  return (unsigned long)unsigned_result(mag, neg, ovf, ULONG_MAX);
}

MNEMO_WEAK unsigned long long strtoull(const char *restrict nptr,
                                       char **restrict end, int base) {
  int neg, ovf;
  unsigned long long mag = parse_magnitude(nptr, end, base, &neg, &ovf);
  return unsigned_result(mag, neg, ovf, ULLONG_MAX);
}

MNEMO_WEAK int atoi(const char *s) { return (int)strtol(s, NULL, 10); }
MNEMO_WEAK long atol(const char *s) { return strtol(s, NULL, 10); }
MNEMO_WEAK long long atoll(const char *s) { return strtoll(s, NULL, 10); }

/* Branch-free, so taking an absolute value never splits a path: the sign
 * mask is all ones for a negative x, and (x ^ m) - m negates it. The
 * arithmetic is done unsigned so INT_MIN wraps as it does natively. */
MNEMO_WEAK int abs(int x) {
  unsigned m = (unsigned)(x >> 31);
  return (int)(((unsigned)x ^ m) - m);
}
MNEMO_WEAK long labs(long x) {
  unsigned long m = (unsigned long)(x >> 63);
  return (long)(((unsigned long)x ^ m) - m);
}
MNEMO_WEAK long long llabs(long long x) {
  unsigned long long m = (unsigned long long)(x >> 63);
  return (long long)(((unsigned long long)x ^ m) - m);
}

MNEMO_WEAK div_t div(int num, int den) {
  div_t r;
  r.quot = num / den;
  r.rem = num % den;
  return r;
}

MNEMO_WEAK ldiv_t ldiv(long num, long den) {
  ldiv_t r;
  r.quot = num / den;
  r.rem = num % den;
  return r;
}

MNEMO_WEAK lldiv_t lldiv(long long num, long long den) {
  lldiv_t r;
  r.quot = num / den;
  r.rem = num % den;
  return r;
}

/* Moves element `from` down to slot `to` (to <= from), shifting the ones in
 * between up by one; byte by byte, so no scratch element is needed. */
static void rotate_into_place(unsigned char *base, size_t size, size_t to,
                              size_t from) {
  for (size_t b = 0; b < size; b++) {
    unsigned char saved = base[from * size + b];
    for (size_t k = from; k > to; k--)
      base[k * size + b] = base[(k - 1) * size + b];
    base[to * size + b] = saved;
  }
}

/* Binary insertion sort: stable like glibc's merge sort (so programs that
 * print equal keys behave the same natively), no allocation, and
 * O(n log n) comparisons, which are what forks paths on symbolic data. */
MNEMO_WEAK void qsort(void *base, size_t n, size_t size,
                      int (*cmp)(const void *, const void *)) {
  unsigned char *a = base;
  for (size_t i = 1; i < n; i++) {
    size_t lo = 0, hi = i;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (cmp(a + mid * size, a + i * size) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < i)
      rotate_into_place(a, size, lo, i);
  }
}

MNEMO_WEAK void *bsearch(const void *key, const void *base, size_t n,
                         size_t size, int (*cmp)(const void *, const void *)) {
  const unsigned char *a = base;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = cmp(key, a + mid * size);
    if (c == 0)
      return (void *)(a + mid * size);
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return NULL;
}

/* glibc's default generator (TYPE_3: additive feedback over 31 words,
 * seeded by a Park-Miller sequence), so that rand() gives the same numbers
 * in the engine as in the native replay. */
#define RAND_DEG 31
#define RAND_SEP 3
static int32_t rand_state[RAND_DEG];
static int rand_front, rand_rear, rand_seeded;

static int32_t rand_step(void) {
  uint32_t sum =
      (uint32_t)rand_state[rand_front] + (uint32_t)rand_state[rand_rear];
  rand_state[rand_front] = (int32_t)sum;
  rand_front = (rand_front + 1) % RAND_DEG;
  rand_rear = (rand_rear + 1) % RAND_DEG;
  return (int32_t)(sum >> 1);
}

MNEMO_WEAK void srand(unsigned int seed) {
  int32_t word = seed == 0 ? 1 : (int32_t)seed;
  rand_state[0] = word;
  for (int i = 1; i < RAND_DEG; i++) {
    int32_t hi = word / 127773;
    int32_t lo = word % 127773;
    word = 16807 * lo - 2836 * hi;
    if (word < 0)
      word += 2147483647;
    rand_state[i] = word;
  }
  rand_front = RAND_SEP;
  rand_rear = 0;
  rand_seeded = 1;
  for (int i = 0; i < 10 * RAND_DEG; i++)
    rand_step();
}

MNEMO_WEAK int rand(void) {
  if (!rand_seeded)
    srand(1);
  return rand_step();
}

/* Programs see an empty environment: inputs come from symbolic data. */
MNEMO_WEAK char *getenv(const char *name) {
  (void)name;
  return NULL;
}
