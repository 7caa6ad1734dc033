/*
 * stdio.h output: the printf family, puts and friends, and the stdin,
 * stdout and stderr streams.
 *
 * There is no buffering: every call ends with its text handed to write(),
 * the single output primitive the engine implements, so the engine sees
 * output in program order and nothing is lost when a path ends abruptly.
 */
#include "mnemo_libc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* glibc's FILE, with only the descriptor filled in: nothing in the runtime
 * reads any other field, and programs compiled against glibc only pass
 * these objects back to the runtime. */
static FILE mnemo_stdin_file = {._fileno = 0};
static FILE mnemo_stdout_file = {._fileno = 1};
static FILE mnemo_stderr_file = {._fileno = 2};

MNEMO_WEAK FILE *stdin = &mnemo_stdin_file;
MNEMO_WEAK FILE *stdout = &mnemo_stdout_file;
MNEMO_WEAK FILE *stderr = &mnemo_stderr_file;

MNEMO_WEAK int fileno(FILE *f) { return f->_fileno; }

/* Where formatted text goes: into a caller's buffer (snprintf; characters
 * beyond the capacity are counted but dropped) or to a file descriptor
 * through a small staging buffer. */
struct sink {
  char *buf;
  size_t cap;
  size_t len;
  size_t total;
  int fd;
  int failed;
  char stage[128];
};

static void sink_flush(struct sink *s) {
  size_t done = 0;
  if (s->fd < 0)
    return;
  while (done < s->len && !s->failed) {
    ssize_t n = write(s->fd, s->stage + done, s->len - done);
    if (n <= 0)
      s->failed = 1;
    else
      done += (size_t)n;
  }
  s->len = 0;
}

static void sink_put(struct sink *s, char c) {
  s->total++;
  if (s->fd >= 0) {
    if (s->len == sizeof s->stage)
      sink_flush(s);
    s->stage[s->len++] = c;
  } else if (s->len + 1 < s->cap) {
    s->buf[s->len++] = c;
  }
}

static void sink_write(struct sink *s, const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    sink_put(s, p[i]);
}

static void sink_repeat(struct sink *s, char c, long n) {
  for (long i = 0; i < n; i++)
    sink_put(s, c);
}

static void sink_init_fd(struct sink *s, int fd) {
  s->buf = NULL;
  s->cap = 0;
  s->len = 0;
  s->total = 0;
  s->fd = fd;
  s->failed = 0;
}

static void sink_init_buf(struct sink *s, char *buf, size_t cap) {
  s->buf = buf;
  s->cap = cap;
  s->len = 0;
  s->total = 0;
  s->fd = -1;
  s->failed = 0;
}

/* Ends a formatting call: NUL-terminates a buffer, flushes a descriptor,
 * and gives printf's return value. */
static int sink_finish(struct sink *s) {
  if (s->fd >= 0)
    sink_flush(s);
  else if (s->cap > 0)
    s->buf[s->len] = '\0';
  if (s->failed)
    return -1;
  if (s->total > 0x7fffffff) {
    errno = EOVERFLOW;
    return -1;
  }
  return (int)s->total;
}

/* One parsed conversion specification. */
struct spec {
  int left, plus, space, zero, alt;
  long width;
  long prec; /* -1: none given */
  char conv;
};

/* Emits prefix (sign, 0x) and body with the padding the spec asks for;
 * `zeros` are precision zeros between prefix and body and `tail_zeros`
 * trailing zeros after it, followed by `tail`. */
static void emit_padded(struct sink *s, const struct spec *sp,
                        const char *prefix, size_t plen, long zeros,
                        const char *body, size_t blen, long tail_zeros,
                        const char *tail, size_t tlen, int zero_pad_ok) {
  long len = (long)plen + zeros + (long)blen + tail_zeros + (long)tlen;
  long pad = sp->width > len ? sp->width - len : 0;
  if (sp->left) {
    sink_write(s, prefix, plen);
    sink_repeat(s, '0', zeros);
    sink_write(s, body, blen);
    sink_repeat(s, '0', tail_zeros);
    sink_write(s, tail, tlen);
    sink_repeat(s, ' ', pad);
  } else if (sp->zero && zero_pad_ok) {
    sink_write(s, prefix, plen);
    sink_repeat(s, '0', zeros + pad);
    sink_write(s, body, blen);
    sink_repeat(s, '0', tail_zeros);
    sink_write(s, tail, tlen);
  } else {
    sink_repeat(s, ' ', pad);
    sink_write(s, prefix, plen);
    sink_repeat(s, '0', zeros);
    sink_write(s, body, blen);
    sink_repeat(s, '0', tail_zeros);
    sink_write(s, tail, tlen);
  }
}

static void format_integer(struct sink *s, const struct spec *sp,
                           unsigned long long mag, int negative,
                           int is_signed, int is_pointer) {
  char digits[32];
  size_t n = 0;
  unsigned base = 10;
  const char *alphabet = "0123456789abcdef";
  char prefix[3];
  size_t plen = 0;
  long zeros;

  if (sp->conv == 'o')
    base = 8;
  else if (sp->conv == 'x' || sp->conv == 'X' || is_pointer)
    base = 16;
  if (sp->conv == 'X')
    alphabet = "0123456789ABCDEF";

  /* Digits, least significant first. */
  if (!(mag == 0 && sp->prec == 0)) {
    do {
      digits[n++] = alphabet[mag % base];
      mag /= base;
    } while (mag != 0);
  }
  zeros = sp->prec > (long)n ? sp->prec - (long)n : 0;
  if (base == 8 && sp->alt && zeros == 0 && (n == 0 || digits[n - 1] != '0'))
    zeros = 1;

  if (is_signed) {
    if (negative)
      prefix[plen++] = '-';
    else if (sp->plus)
      prefix[plen++] = '+';
    else if (sp->space)
      prefix[plen++] = ' ';
  }
  if (base == 16 && (is_pointer || (sp->alt && n > 0 && !(n == 1 && digits[0] == '0')))) {
    prefix[plen++] = '0';
    prefix[plen++] = sp->conv == 'X' ? 'X' : 'x';
  }

  /* Reverse into most-significant-first order. */
  for (size_t i = 0; i < n / 2; i++) {
    char t = digits[i];
    digits[i] = digits[n - 1 - i];
    digits[n - 1 - i] = t;
  }
  emit_padded(s, sp, prefix, plen, zeros, digits, n, 0, "", 0,
              sp->prec < 0);
}

/*
 * Exact decimal expansion of a double, so %f/%e/%g print the digits glibc
 * prints (glibc rounds the exact value, ties to even). The value m * 2^e is
 * turned into an integer N = m * 2^e (e >= 0) or m * 5^-e (e < 0, the
 * decimal point then sits -e digits from the right), held in base 10^9
 * limbs. The largest case, m * 5^1074, has 767 digits.
 */
#define DEC_LIMBS 90
#define DEC_DIGITS (DEC_LIMBS * 9)

struct decimal {
  char d[DEC_DIGITS + 2]; /* digits, no leading zeros; empty means zero */
  int len;
  int point; /* value = 0.d[0]d[1]... * 10^point */
};

static void big_mul_small(uint32_t *limbs, int *nlimbs, uint32_t factor) {
  uint64_t carry = 0;
  for (int i = 0; i < *nlimbs; i++) {
    uint64_t v = (uint64_t)limbs[i] * factor + carry;
    limbs[i] = (uint32_t)(v % 1000000000u);
    carry = v / 1000000000u;
  }
  while (carry != 0 && *nlimbs < DEC_LIMBS) {
    limbs[(*nlimbs)++] = (uint32_t)(carry % 1000000000u);
    carry /= 1000000000u;
  }
}

static void decimal_from_bits(struct decimal *dec, uint64_t mant, int exp2) {
  uint32_t limbs[DEC_LIMBS];
  int nlimbs = 0;
  int frac_digits = 0;
  dec->len = 0;
  dec->point = 0;
  if (mant == 0)
    return;
  while (mant != 0) {
    limbs[nlimbs++] = (uint32_t)(mant % 1000000000u);
    mant /= 1000000000u;
  }
  for (; exp2 > 0; exp2 -= exp2 > 28 ? 28 : exp2)
    big_mul_small(limbs, &nlimbs, 1u << (exp2 > 28 ? 28 : exp2));
  for (; exp2 < 0; exp2 += exp2 < -12 ? 12 : -exp2) {
    int k = exp2 < -12 ? 12 : -exp2;
    uint32_t f = 1;
    for (int i = 0; i < k; i++)
      f *= 5;
    big_mul_small(limbs, &nlimbs, f);
    frac_digits += k;
  }
  /* Most significant limb without leading zeros, the others with 9. */
  for (int i = nlimbs - 1; i >= 0; i--) {
    char tmp[9];
    uint32_t v = limbs[i];
    for (int j = 8; j >= 0; j--) {
      tmp[j] = (char)('0' + v % 10);
      v /= 10;
    }
    int start = 0;
    if (i == nlimbs - 1)
      while (start < 8 && tmp[start] == '0')
        start++;
    for (int j = start; j < 9; j++)
      dec->d[dec->len++] = tmp[j];
  }
  dec->point = dec->len - frac_digits;
  while (dec->len > 0 && dec->d[dec->len - 1] == '0')
    dec->len--;
}

/* Rounds to the first `keep` digits (ties to even). */
static void decimal_round(struct decimal *dec, int keep) {
  int up;
  if (keep >= dec->len)
    return;
  if (keep < 0) {
    dec->len = 0;
    return;
  }
  if (dec->d[keep] > '5') {
    up = 1;
  } else if (dec->d[keep] < '5') {
    up = 0;
  } else {
    up = 0;
    for (int i = keep + 1; i < dec->len; i++)
      if (dec->d[i] != '0')
        up = 1;
    if (!up)
      up = keep > 0 && ((dec->d[keep - 1] - '0') & 1);
  }
  dec->len = keep;
  if (!up) {
    while (dec->len > 0 && dec->d[dec->len - 1] == '0')
      dec->len--;
    return;
  }
  for (int i = keep - 1; i >= 0; i--) {
    if (dec->d[i] != '9') {
      dec->d[i]++;
      dec->len = i + 1;
      return;
    }
  }
  /* All nines (or keep == 0): the value becomes 10^point. */
  dec->d[0] = '1';
  dec->len = 1;
  dec->point++;
}

static char decimal_digit(const struct decimal *dec, int i) {
  return (i >= 0 && i < dec->len) ? dec->d[i] : '0';
}

/* Fixed notation with `prec` fraction digits into out; digits past the
 * expansion are zeros, which are returned as a count instead of written so
 * that huge precisions need no buffer. */
static size_t fixed_body(const struct decimal *dec, int prec, int alt,
                         char *out, long *trailing) {
  size_t n = 0;
  int written;
  if (dec->point <= 0) {
    out[n++] = '0';
  } else {
    for (int i = 0; i < dec->point; i++)
      out[n++] = decimal_digit(dec, i);
  }
  if (prec > 0 || alt)
    out[n++] = '.';
  written = dec->len - dec->point;
  if (written > prec)
    written = prec;
  if (written < 0)
    written = 0;
  for (int i = 0; i < written; i++)
    out[n++] = decimal_digit(dec, dec->point + i);
  *trailing = prec - written;
  return n;
}

static size_t exp_body(const struct decimal *dec, int prec, int alt,
                       char *out, long *trailing) {
  size_t n = 0;
  int written = dec->len - 1;
  out[n++] = decimal_digit(dec, 0);
  if (prec > 0 || alt)
    out[n++] = '.';
  if (written > prec)
    written = prec;
  if (written < 0)
    written = 0;
  for (int i = 0; i < written; i++)
    out[n++] = decimal_digit(dec, 1 + i);
  *trailing = prec - written;
  return n;
}

static size_t exp_suffix(int exp10, int upper, char *out) {
  size_t n = 0;
  char digits[8];
  int nd = 0;
  unsigned v = exp10 < 0 ? (unsigned)-exp10 : (unsigned)exp10;
  out[n++] = upper ? 'E' : 'e';
  out[n++] = exp10 < 0 ? '-' : '+';
  do {
    digits[nd++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (nd < 2)
    digits[nd++] = '0';
  while (nd > 0)
    out[n++] = digits[--nd];
  return n;
}

static void format_double(struct sink *s, const struct spec *sp, double x) {
  uint64_t bits;
  int negative, biased;
  uint64_t mant;
  int upper = sp->conv == 'F' || sp->conv == 'E' || sp->conv == 'G';
  char prefix[2];
  size_t plen = 0;
  static struct decimal dec_storage;
  struct decimal *dec = &dec_storage;
  char body[DEC_DIGITS + 400];
  char tail[8];
  size_t blen, tlen = 0;
  long trailing = 0;
  int prec = sp->prec < 0 ? 6 : (sp->prec > 100000 ? 100000 : (int)sp->prec);

  memcpy(&bits, &x, sizeof bits);
  negative = (int)(bits >> 63);
  biased = (int)((bits >> 52) & 0x7ff);
  mant = bits & ((1ull << 52) - 1);

  if (negative)
    prefix[plen++] = '-';
  else if (sp->plus)
    prefix[plen++] = '+';
  else if (sp->space)
    prefix[plen++] = ' ';

  if (biased == 0x7ff) {
    const char *word = mant != 0 ? (upper ? "NAN" : "nan")
                                 : (upper ? "INF" : "inf");
    emit_padded(s, sp, prefix, plen, 0, word, 3, 0, "", 0, 0);
    return;
  }
  if (biased == 0)
    decimal_from_bits(dec, mant, -1074);
  else
    decimal_from_bits(dec, mant | (1ull << 52), biased - 1075);

  switch (sp->conv) {
  case 'f':
  case 'F':
    decimal_round(dec, dec->point + prec);
    blen = fixed_body(dec, prec, sp->alt, body, &trailing);
    break;
  case 'e':
  case 'E': {
    int exp10;
    decimal_round(dec, prec + 1);
    exp10 = dec->len == 0 ? 0 : dec->point - 1;
    blen = exp_body(dec, prec, sp->alt, body, &trailing);
    tlen = exp_suffix(exp10, upper, tail);
    break;
  }
  default: { /* g, G */
    int p = prec == 0 ? 1 : prec;
    int exp10;
    decimal_round(dec, p);
    exp10 = dec->len == 0 ? 0 : dec->point - 1;
    if (exp10 < p && exp10 >= -4) {
      blen = fixed_body(dec, p - 1 - exp10, sp->alt, body, &trailing);
    } else {
      blen = exp_body(dec, p - 1, sp->alt, body, &trailing);
      tlen = exp_suffix(exp10, upper, tail);
    }
    if (!sp->alt) {
      /* %g drops trailing zeros of the fraction, and a bare point. */
      int has_point = 0;
      trailing = 0;
      for (size_t i = 0; i < blen; i++)
        if (body[i] == '.')
          has_point = 1;
      if (has_point) {
        while (blen > 0 && body[blen - 1] == '0')
          blen--;
        if (blen > 0 && body[blen - 1] == '.')
          blen--;
      }
    }
    break;
  }
  }
  emit_padded(s, sp, prefix, plen, 0, body, blen, trailing, tail, tlen, 1);
}

/* The length of a string that may hold symbolic bytes, taking each byte's
 * example value so the scan does not fork; `max` < 0 means no bound. */
static size_t example_strnlen(const char *str, long max) {
  size_t n = 0;
  while ((max < 0 || n < (size_t)max) &&
         mnemo_example((unsigned char)str[n]) != 0)
    n++;
  return n;
}

static void format_string(struct sink *s, const struct spec *sp,
                          const char *str) {
  size_t n;
  if (str == NULL)
    str = (sp->prec < 0 || sp->prec >= 6) ? "(null)" : "";
  n = example_strnlen(str, sp->prec);
  emit_padded(s, sp, "", 0, 0, str, n, 0, "", 0, 0);
}

enum length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_J, LEN_T,
              LEN_LD };

/* The format engine shared by the whole printf family. */
static void format(struct sink *s, const char *fmt, va_list ap) {
  while (*fmt != '\0') {
    const char *start = fmt;
    struct spec sp;
    enum length len = LEN_NONE;

    if (*fmt != '%') {
      sink_put(s, *fmt++);
      continue;
    }
    fmt++;
    sp.left = sp.plus = sp.space = sp.zero = sp.alt = 0;
    sp.width = 0;
    sp.prec = -1;
    for (;; fmt++) {
      if (*fmt == '-')
        sp.left = 1;
      else if (*fmt == '+')
        sp.plus = 1;
      else if (*fmt == ' ')
        sp.space = 1;
      else if (*fmt == '0')
        sp.zero = 1;
      else if (*fmt == '#')
        sp.alt = 1;
      else if (*fmt != '\'')
        break;
    }
    if (*fmt == '*') {
      int w = va_arg(ap, int);
      fmt++;
      if (w < 0) {
        sp.left = 1;
        sp.width = -(long)w;
      } else {
        sp.width = w;
      }
    } else {
      while (*fmt >= '0' && *fmt <= '9')
        sp.width = sp.width * 10 + (*fmt++ - '0');
    }
    if (*fmt == '.') {
      fmt++;
      if (*fmt == '*') {
        int p = va_arg(ap, int);
        fmt++;
        sp.prec = p < 0 ? -1 : p;
      } else {
        sp.prec = 0;
        while (*fmt >= '0' && *fmt <= '9')
          sp.prec = sp.prec * 10 + (*fmt++ - '0');
      }
    }
    switch (*fmt) {
    case 'h':
      len = fmt[1] == 'h' ? LEN_HH : LEN_H;
      fmt += fmt[1] == 'h' ? 2 : 1;
      break;
    case 'l':
      len = fmt[1] == 'l' ? LEN_LL : LEN_L;
      fmt += fmt[1] == 'l' ? 2 : 1;
      break;
    case 'q':
      len = LEN_LL;
      fmt++;
      break;
    case 'z':
      len = LEN_Z;
      fmt++;
      break;
    case 'j':
      len = LEN_J;
      fmt++;
      break;
    case 't':
      len = LEN_T;
      fmt++;
      break;
    case 'L':
      len = LEN_LD;
      fmt++;
      break;
    default:
      break;
    }
    sp.conv = *fmt;
    if (sp.left)
      sp.zero = 0;

    switch (sp.conv) {
    case 'd':
    case 'i': {
      long long v;
      switch (len) {
      case LEN_HH: v = (signed char)va_arg(ap, int); break;
      case LEN_H: v = (short)va_arg(ap, int); break;
      case LEN_L: v = va_arg(ap, long); break;
      case LEN_LL:
      case LEN_LD: v = va_arg(ap, long long); break;
      case LEN_Z: v = (long long)va_arg(ap, ssize_t); break;
      case LEN_J: v = (long long)va_arg(ap, intmax_t); break;
      case LEN_T: v = (long long)va_arg(ap, ptrdiff_t); break;
      default: v = va_arg(ap, int); break;
      }
      v = (long long)mnemo_example((unsigned long long)v);
      format_integer(s, &sp,
                     v < 0 ? 0ull - (unsigned long long)v
                           : (unsigned long long)v,
                     v < 0, 1, 0);
      break;
    }
    case 'u':
    case 'o':
    case 'x':
    case 'X': {
      unsigned long long v;
      switch (len) {
      case LEN_HH: v = (unsigned char)va_arg(ap, unsigned); break;
      case LEN_H: v = (unsigned short)va_arg(ap, unsigned); break;
      case LEN_L: v = va_arg(ap, unsigned long); break;
      case LEN_LL:
      case LEN_LD: v = va_arg(ap, unsigned long long); break;
      case LEN_Z: v = va_arg(ap, size_t); break;
      case LEN_J: v = (unsigned long long)va_arg(ap, uintmax_t); break;
      case LEN_T: v = (unsigned long long)va_arg(ap, ptrdiff_t); break;
      default: v = va_arg(ap, unsigned); break;
      }
      v = mnemo_example(v);
      format_integer(s, &sp, v, 0, 0, 0);
      break;
    }
    case 'p': {
      void *p = va_arg(ap, void *);
      if (p == NULL) {
        struct spec nil = sp;
        nil.prec = -1;
        format_string(s, &nil, "(nil)");
      } else {
        format_integer(s, &sp, (unsigned long long)(uintptr_t)p, 0, 1, 1);
      }
      break;
    }
    case 'c': {
      char c = (char)va_arg(ap, int);
      emit_padded(s, &sp, "", 0, 0, &c, 1, 0, "", 0, 0);
      break;
    }
    case 's':
      format_string(s, &sp, va_arg(ap, const char *));
      break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G': {
      double x = len == LEN_LD ? (double)va_arg(ap, long double)
                               : va_arg(ap, double);
      format_double(s, &sp, x);
      break;
    }
    case 'n': {
      switch (len) {
      case LEN_HH: *va_arg(ap, signed char *) = (signed char)s->total; break;
      case LEN_H: *va_arg(ap, short *) = (short)s->total; break;
      case LEN_L: *va_arg(ap, long *) = (long)s->total; break;
      case LEN_LL: *va_arg(ap, long long *) = (long long)s->total; break;
      case LEN_Z: *va_arg(ap, size_t *) = s->total; break;
      default: *va_arg(ap, int *) = (int)s->total; break;
      }
      break;
    }
    case '%':
      sink_put(s, '%');
      break;
    default:
      /* An unknown conversion is printed as written, as glibc does. */
      if (*fmt == '\0') {
        sink_write(s, start, (size_t)(fmt - start));
        return;
      }
      sink_write(s, start, (size_t)(fmt - start) + 1);
      break;
    }
    fmt++;
  }
}

MNEMO_WEAK int vsnprintf(char *restrict buf, size_t size,
                         const char *restrict fmt, va_list ap) {
  struct sink s;
  sink_init_buf(&s, buf, size);
  format(&s, fmt, ap);
  return sink_finish(&s);
}

MNEMO_WEAK int vsprintf(char *restrict buf, const char *restrict fmt,
                        va_list ap) {
  return vsnprintf(buf, (size_t)-1 / 2, fmt, ap);
}

MNEMO_WEAK int vfprintf(FILE *restrict f, const char *restrict fmt,
                        va_list ap) {
  struct sink s;
  sink_init_fd(&s, f->_fileno);
  format(&s, fmt, ap);
  return sink_finish(&s);
}

MNEMO_WEAK int vprintf(const char *restrict fmt, va_list ap) {
  return vfprintf(stdout, fmt, ap);
}

MNEMO_WEAK int snprintf(char *restrict buf, size_t size,
                        const char *restrict fmt, ...) {
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return r;
}

MNEMO_WEAK int sprintf(char *restrict buf, const char *restrict fmt, ...) {
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = vsprintf(buf, fmt, ap);
  va_end(ap);
  return r;
}

MNEMO_WEAK int fprintf(FILE *restrict f, const char *restrict fmt, ...) {
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = vfprintf(f, fmt, ap);
  va_end(ap);
  return r;
}

MNEMO_WEAK int printf(const char *restrict fmt, ...) {
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = vfprintf(stdout, fmt, ap);
  va_end(ap);
  return r;
}

/* Writes all n bytes to fd; 0 on success, -1 on a failed write. */
static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

MNEMO_WEAK int fputs(const char *restrict str, FILE *restrict f) {
  return write_all(f->_fileno, str, example_strnlen(str, -1)) == 0 ? 1 : EOF;
}

MNEMO_WEAK int puts(const char *str) {
  size_t n = example_strnlen(str, -1);
  if (write_all(stdout->_fileno, str, n) != 0 ||
      write_all(stdout->_fileno, "\n", 1) != 0)
    return EOF;
  return n + 1 > 0x7fffffff ? 0x7fffffff : (int)(n + 1);
}

MNEMO_WEAK int fputc(int c, FILE *f) {
  char ch = (char)c;
  return write_all(f->_fileno, &ch, 1) == 0 ? (unsigned char)c : EOF;
}

MNEMO_WEAK int putc(int c, FILE *f) { return fputc(c, f); }

MNEMO_WEAK int putchar(int c) { return fputc(c, stdout); }

MNEMO_WEAK size_t fwrite(const void *restrict p, size_t size, size_t n,
                         FILE *restrict f) {
  if (size == 0 || n == 0)
    return 0;
  return write_all(f->_fileno, p, size * n) == 0 ? n : 0;
}

MNEMO_WEAK int fflush(FILE *f) {
  (void)f;
  return 0;
}

MNEMO_WEAK void perror(const char *msg) {
  const char *text = strerror(errno);
  if (msg != NULL && *msg != '\0')
    fprintf(stderr, "%s: %s\n", msg, text);
  else
    fprintf(stderr, "%s\n", text);
}
