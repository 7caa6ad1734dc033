/*
 * Native self-test of mnemo's runtime C library: each function, renamed to
 * mnemo_<name> by the Makefile, is run next to glibc's on the same inputs
 * and the results are compared. Output functions write through
 * mnemo_write, which this driver captures.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

/* The runtime under test. */
void *mnemo_memcpy(void *, const void *, size_t);
void *mnemo_memmove(void *, const void *, size_t);
void *mnemo_memset(void *, int, size_t);
int mnemo_memcmp(const void *, const void *, size_t);
void *mnemo_memchr(const void *, int, size_t);
size_t mnemo_strlen(const char *);
size_t mnemo_strnlen(const char *, size_t);
int mnemo_strcmp(const char *, const char *);
int mnemo_strncmp(const char *, const char *, size_t);
char *mnemo_strcpy(char *, const char *);
char *mnemo_strncpy(char *, const char *, size_t);
char *mnemo_strcat(char *, const char *);
char *mnemo_strncat(char *, const char *, size_t);
char *mnemo_strchr(const char *, int);
char *mnemo_strrchr(const char *, int);
char *mnemo_strstr(const char *, const char *);
size_t mnemo_strspn(const char *, const char *);
size_t mnemo_strcspn(const char *, const char *);
char *mnemo_strpbrk(const char *, const char *);
char *mnemo_strdup(const char *);
char *mnemo_strndup(const char *, size_t);
char *mnemo_strtok(char *, const char *);
char *mnemo_strtok_r(char *, const char *, char **);
int mnemo_strcasecmp(const char *, const char *);
int mnemo_strncasecmp(const char *, const char *, size_t);
void mnemo_bzero(void *, size_t);
char *mnemo_strerror(int);
int mnemo_isalpha(int), mnemo_isdigit(int), mnemo_isalnum(int),
    mnemo_isspace(int), mnemo_isupper(int), mnemo_islower(int),
    mnemo_isxdigit(int), mnemo_isprint(int), mnemo_isgraph(int),
    mnemo_ispunct(int), mnemo_iscntrl(int), mnemo_isblank(int),
    mnemo_isascii(int), mnemo_toascii(int), mnemo_tolower(int),
    mnemo_toupper(int);
const unsigned short **mnemo___ctype_b_loc(void);
const int32_t **mnemo___ctype_tolower_loc(void);
const int32_t **mnemo___ctype_toupper_loc(void);
int *mnemo___errno_location(void);
long mnemo_strtol(const char *, char **, int);
long long mnemo_strtoll(const char *, char **, int);
unsigned long mnemo_strtoul(const char *, char **, int);
unsigned long long mnemo_strtoull(const char *, char **, int);
int mnemo_atoi(const char *);
long mnemo_atol(const char *);
long long mnemo_atoll(const char *);
int mnemo_abs(int);
long mnemo_labs(long);
long long mnemo_llabs(long long);
div_t mnemo_div(int, int);
ldiv_t mnemo_ldiv(long, long);
void mnemo_qsort(void *, size_t, size_t, int (*)(const void *, const void *));
void *mnemo_bsearch(const void *, const void *, size_t, size_t,
                    int (*)(const void *, const void *));
int mnemo_rand(void);
void mnemo_srand(unsigned);
char *mnemo_getenv(const char *);
int mnemo_snprintf(char *, size_t, const char *, ...);
int mnemo_sprintf(char *, const char *, ...);
int mnemo_vsnprintf(char *, size_t, const char *, va_list);
int mnemo_printf(const char *, ...);
int mnemo_fprintf(FILE *, const char *, ...);
int mnemo_puts(const char *);
int mnemo_putchar(int);
int mnemo_fputs(const char *, FILE *);
int mnemo_fputc(int, FILE *);
int mnemo_putc(int, FILE *);
size_t mnemo_fwrite(const void *, size_t, size_t, FILE *);
int mnemo_fflush(FILE *);
void mnemo_perror(const char *);
int mnemo_fileno(FILE *);
extern FILE *mnemo_stdout, *mnemo_stderr, *mnemo_stdin;

static int failures, checks;

#define CHECK(cond, ...)                                                     \
  do {                                                                       \
    checks++;                                                                \
    if (!(cond)) {                                                           \
      failures++;                                                            \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                            \
      printf(__VA_ARGS__);                                                   \
      printf("\n");                                                          \
    }                                                                        \
  } while (0)

static int sign(long v) { return (v > 0) - (v < 0); }

/* Captured output of the runtime, per descriptor. */
static char captured[3][8192];
static size_t captured_len[3];

ssize_t mnemo_write(int fd, const void *buf, size_t n) {
  if (fd < 0 || fd > 2 || captured_len[fd] + n > sizeof captured[fd])
    return -1;
  memcpy(captured[fd] + captured_len[fd], buf, n);
  captured_len[fd] += n;
  return (ssize_t)n;
}

/* Natively every value is concrete: its example is itself. */
unsigned long long mnemo_example(unsigned long long v) { return v; }

static void reset_capture(void) {
  memset(captured_len, 0, sizeof captured_len);
}

static void test_memory(void) {
  char a[64], b[64];
  for (int i = 0; i < 64; i++)
    a[i] = (char)(i * 7);
  CHECK(mnemo_memcpy(b, a, 64) == b && memcmp(a, b, 64) == 0, "memcpy");
  memcpy(b, "0123456789", 11);
  mnemo_memmove(b + 2, b, 8);
  CHECK(memcmp(b, "0101234567", 10) == 0, "memmove up: %.10s", b);
  memcpy(b, "0123456789", 11);
  mnemo_memmove(b, b + 3, 7);
  CHECK(memcmp(b, "3456789789", 10) == 0, "memmove down: %.10s", b);
  mnemo_memset(b, 'x', 5);
  CHECK(memcmp(b, "xxxxx", 5) == 0, "memset");
  mnemo_bzero(b, 3);
  CHECK(b[0] == 0 && b[2] == 0 && b[3] == 'x', "bzero");
  CHECK(mnemo_memcmp("abc", "abd", 3) < 0, "memcmp <");
  CHECK(mnemo_memcmp("ab\xff", "ab\x01", 3) > 0, "memcmp unsigned");
  CHECK(mnemo_memcmp("abc", "abd", 2) == 0, "memcmp prefix");
  const char *h = "hello";
  CHECK(mnemo_memchr(h, 'l', 5) == h + 2, "memchr found");
  CHECK(mnemo_memchr(h, 'z', 5) == NULL, "memchr missing");
  CHECK(mnemo_memchr(h, 'o', 4) == NULL, "memchr bound");
}

static void test_strings(void) {
  static const char *words[] = {"", "a", "abc", "abd", "ab", "ABC", "Abc",
                                "hello world", "\xff", "z"};
  size_t nw = sizeof words / sizeof words[0];
  char buf[64], buf2[64];
  for (size_t i = 0; i < nw; i++) {
    CHECK(mnemo_strlen(words[i]) == strlen(words[i]), "strlen %s", words[i]);
    CHECK(mnemo_strnlen(words[i], 2) == strnlen(words[i], 2), "strnlen");
    for (size_t j = 0; j < nw; j++) {
      const char *x = words[i], *y = words[j];
      CHECK(sign(mnemo_strcmp(x, y)) == sign(strcmp(x, y)), "strcmp %s %s",
            x, y);
      CHECK(sign(mnemo_strncmp(x, y, 2)) == sign(strncmp(x, y, 2)),
            "strncmp %s %s", x, y);
      CHECK(sign(mnemo_strcasecmp(x, y)) == sign(strcasecmp(x, y)),
            "strcasecmp %s %s", x, y);
      CHECK(sign(mnemo_strncasecmp(x, y, 2)) == sign(strncasecmp(x, y, 2)),
            "strncasecmp %s %s", x, y);
      CHECK(mnemo_strstr(x, y) == strstr(x, y), "strstr %s %s", x, y);
      CHECK(mnemo_strspn(x, y) == strspn(x, y), "strspn %s %s", x, y);
      CHECK(mnemo_strcspn(x, y) == strcspn(x, y), "strcspn %s %s", x, y);
      CHECK(mnemo_strpbrk(x, y) == strpbrk(x, y), "strpbrk %s %s", x, y);
    }
    for (int c = 0; c < 256; c += 17) {
      CHECK(mnemo_strchr(words[i], c) == strchr(words[i], c), "strchr");
      CHECK(mnemo_strrchr(words[i], c) == strrchr(words[i], c), "strrchr");
    }
    CHECK(mnemo_strchr(words[i], 0) == strchr(words[i], 0), "strchr nul");
  }
  CHECK(mnemo_strrchr("abcabc", 'b') == NULL ||
            strcmp(mnemo_strrchr("abcabc", 'b'), "bc") == 0,
        "strrchr last");
  CHECK(mnemo_strcpy(buf, "copy") == buf && strcmp(buf, "copy") == 0,
        "strcpy");
  memset(buf, 'q', sizeof buf);
  mnemo_strncpy(buf, "ab", 5);
  CHECK(memcmp(buf, "ab\0\0\0q", 6) == 0, "strncpy pads");
  mnemo_strncpy(buf, "abcdef", 3);
  CHECK(memcmp(buf, "abc\0", 4) == 0, "strncpy truncates");
  strcpy(buf, "foo");
  CHECK(strcmp(mnemo_strcat(buf, "bar"), "foobar") == 0, "strcat");
  CHECK(strcmp(mnemo_strncat(buf, "bazqux", 3), "foobarbaz") == 0,
        "strncat");
  char *d = mnemo_strdup("dup");
  CHECK(d != NULL && strcmp(d, "dup") == 0, "strdup");
  free(d);
  d = mnemo_strndup("duplicate", 3);
  CHECK(d != NULL && strcmp(d, "dup") == 0, "strndup");
  free(d);

  strcpy(buf, "  a,b;;c  ,");
  strcpy(buf2, buf);
  char *t1 = mnemo_strtok(buf, " ,;");
  char *t2 = strtok(buf2, " ,;");
  while (t1 != NULL || t2 != NULL) {
    CHECK(t1 != NULL && t2 != NULL && t1 - buf == t2 - buf2 &&
              strcmp(t1, t2) == 0,
          "strtok token");
    if (t1 == NULL || t2 == NULL)
      break;
    t1 = mnemo_strtok(NULL, " ,;");
    t2 = strtok(NULL, " ,;");
  }
  char *save = NULL;
  strcpy(buf, "x=1&y=2");
  CHECK(strcmp(mnemo_strtok_r(buf, "&", &save), "x=1") == 0, "strtok_r 1");
  CHECK(strcmp(mnemo_strtok_r(NULL, "&", &save), "y=2") == 0, "strtok_r 2");
  CHECK(mnemo_strtok_r(NULL, "&", &save) == NULL, "strtok_r end");
  for (int e = 0; e <= ERANGE; e++)
    CHECK(strcmp(mnemo_strerror(e), strerror(e)) == 0, "strerror %d: %s", e,
          mnemo_strerror(e));
  CHECK(strcmp(mnemo_strerror(4242), strerror(4242)) == 0, "strerror unknown");
}

static void test_ctype(void) {
  const unsigned short *mb = *mnemo___ctype_b_loc();
  const unsigned short *gb = *__ctype_b_loc();
  const int32_t *ml = *mnemo___ctype_tolower_loc();
  const int32_t *gl = *__ctype_tolower_loc();
  const int32_t *mu = *mnemo___ctype_toupper_loc();
  const int32_t *gu = *__ctype_toupper_loc();
  for (int c = -128; c < 256; c++) {
    CHECK(mb[c] == gb[c], "ctype_b[%d] %x vs %x", c, mb[c], gb[c]);
    CHECK(ml[c] == gl[c], "tolower table[%d] %d vs %d", c, ml[c], gl[c]);
    CHECK(mu[c] == gu[c], "toupper table[%d] %d vs %d", c, mu[c], gu[c]);
  }
  for (int c = -1; c < 256; c++) {
    CHECK(!mnemo_isalpha(c) == !isalpha(c), "isalpha %d", c);
    CHECK(!mnemo_isdigit(c) == !isdigit(c), "isdigit %d", c);
    CHECK(!mnemo_isalnum(c) == !isalnum(c), "isalnum %d", c);
    CHECK(!mnemo_isspace(c) == !isspace(c), "isspace %d", c);
    CHECK(!mnemo_isupper(c) == !isupper(c), "isupper %d", c);
    CHECK(!mnemo_islower(c) == !islower(c), "islower %d", c);
    CHECK(!mnemo_isxdigit(c) == !isxdigit(c), "isxdigit %d", c);
    CHECK(!mnemo_isprint(c) == !isprint(c), "isprint %d", c);
    CHECK(!mnemo_isgraph(c) == !isgraph(c), "isgraph %d", c);
    CHECK(!mnemo_ispunct(c) == !ispunct(c), "ispunct %d", c);
    CHECK(!mnemo_iscntrl(c) == !iscntrl(c), "iscntrl %d", c);
    CHECK(!mnemo_isblank(c) == !isblank(c), "isblank %d", c);
    CHECK(!mnemo_isascii(c) == !isascii(c), "isascii %d", c);
    CHECK(mnemo_toascii(c) == toascii(c), "toascii %d", c);
    CHECK(mnemo_tolower(c) == tolower(c), "tolower %d", c);
    CHECK(mnemo_toupper(c) == toupper(c), "toupper %d", c);
  }
}

static void test_strto(void) {
  static const char *inputs[] = {
      "0", "42", "  -17xyz", "+8", "0x1F", "0X", "0xg", "017", "08", "z",
      "", "   ", "-", "9223372036854775807", "9223372036854775808",
      "-9223372036854775808", "-9223372036854775809",
      "18446744073709551615", "18446744073709551616", "-1",
      "99999999999999999999999", "\t\n 123", "1010", "zz", "ZZ", "-0x10",
      "2147483648", "-2147483649", "0b101", "7fffffffffffffff"};
  static const int bases[] = {0, 2, 8, 10, 16, 36, 1, 37, -1};
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
      const char *s = inputs[i];
      int base = bases[b];
      char *me, *ge;
      int merr, gerr;
      /* glibc leaves *endptr unset for an invalid base; the runtime sets it
       * to the start, which C allows too, so only valid bases compare it. */
      int valid = base == 0 || (base >= 2 && base <= 36);

      *mnemo___errno_location() = 0;
      errno = 0;
      long ml = mnemo_strtol(s, &me, base);
      merr = *mnemo___errno_location();
      long gl = strtol(s, &ge, base);
      gerr = errno;
      CHECK(ml == gl && (!valid || me == ge) && merr == gerr,
            "strtol(\"%s\", %d): %ld/%td/%d vs %ld/%td/%d", s, base, ml,
            me - s, merr, gl, ge - s, gerr);

      *mnemo___errno_location() = 0;
      errno = 0;
      unsigned long mu = mnemo_strtoul(s, &me, base);
      merr = *mnemo___errno_location();
      unsigned long gu = strtoul(s, &ge, base);
      gerr = errno;
      CHECK(mu == gu && (!valid || me == ge) && merr == gerr,
            "strtoul(\"%s\", %d): %lu/%td/%d vs %lu/%td/%d", s, base, mu,
            me - s, merr, gu, ge - s, gerr);

      *mnemo___errno_location() = 0;
      errno = 0;
      long long mll = mnemo_strtoll(s, &me, base);
      merr = *mnemo___errno_location();
      long long gll = strtoll(s, &ge, base);
      gerr = errno;
      CHECK(mll == gll && (!valid || me == ge) && merr == gerr, "strtoll(\"%s\", %d)", s,
            base);

      *mnemo___errno_location() = 0;
      errno = 0;
      unsigned long long mull = mnemo_strtoull(s, &me, base);
      merr = *mnemo___errno_location();
      unsigned long long gull = strtoull(s, &ge, base);
      gerr = errno;
      CHECK(mull == gull && (!valid || me == ge) && merr == gerr, "strtoull(\"%s\", %d)",
            s, base);
    }
    CHECK(mnemo_strtol(inputs[i], NULL, 10) == strtol(inputs[i], NULL, 10),
          "strtol without endptr");
    if (strcmp(inputs[i], "2147483648") != 0 &&
        strcmp(inputs[i], "-2147483649") != 0 &&
        strlen(inputs[i]) < 11)
      CHECK(mnemo_atoi(inputs[i]) == atoi(inputs[i]), "atoi(\"%s\")",
            inputs[i]);
    CHECK(mnemo_atol(inputs[i]) == atol(inputs[i]), "atol(\"%s\")",
          inputs[i]);
    CHECK(mnemo_atoll(inputs[i]) == atoll(inputs[i]), "atoll(\"%s\")",
          inputs[i]);
  }
}

struct pair {
  int key, order;
};

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int cmp_pair(const void *a, const void *b) {
  return cmp_int(&((const struct pair *)a)->key, &((const struct pair *)b)->key);
}

static void test_stdlib(void) {
  int v[50], w[50];
  srand(7);
  for (int i = 0; i < 50; i++)
    v[i] = w[i] = rand() % 20 - 10;
  mnemo_qsort(v, 50, sizeof v[0], cmp_int);
  qsort(w, 50, sizeof w[0], cmp_int);
  CHECK(memcmp(v, w, sizeof v) == 0, "qsort ints");
  mnemo_qsort(v, 0, sizeof v[0], cmp_int);
  mnemo_qsort(v, 1, sizeof v[0], cmp_int);
  CHECK(memcmp(v, w, sizeof v) == 0, "qsort trivial sizes");

  struct pair p[30];
  for (int i = 0; i < 30; i++) {
    p[i].key = (i * 7) % 5;
    p[i].order = i;
  }
  mnemo_qsort(p, 30, sizeof p[0], cmp_pair);
  for (int i = 1; i < 30; i++)
    CHECK(p[i - 1].key < p[i].key ||
              (p[i - 1].key == p[i].key && p[i - 1].order < p[i].order),
          "qsort stable at %d", i);

  for (int k = -12; k < 12; k++) {
    int *m = mnemo_bsearch(&k, w, 50, sizeof w[0], cmp_int);
    int *g = bsearch(&k, w, 50, sizeof w[0], cmp_int);
    CHECK((m == NULL) == (g == NULL) && (m == NULL || *m == k), "bsearch %d",
          k);
  }

  static const unsigned seeds[] = {0, 1, 42, 12345, 0x80000000u, 0xffffffffu};
  for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
    mnemo_srand(seeds[s]);
    srand(seeds[s]);
    for (int i = 0; i < 1000; i++) {
      int a = mnemo_rand(), b = rand();
      if (a != b) {
        CHECK(0, "rand seed %u step %d: %d vs %d", seeds[s], i, a, b);
        break;
      }
    }
  }

  CHECK(mnemo_abs(-5) == 5 && mnemo_abs(5) == 5, "abs");
  CHECK(mnemo_labs(-5L) == 5 && mnemo_llabs(-5LL) == 5, "labs");
  div_t dv = mnemo_div(-7, 2);
  CHECK(dv.quot == -3 && dv.rem == -1, "div");
  ldiv_t ldv = mnemo_ldiv(7L, -2L);
  CHECK(ldv.quot == -3 && ldv.rem == 1, "ldiv");
  CHECK(mnemo_getenv("PATH") == NULL, "getenv");
}

/* Formats with both libraries and compares text and return value. */
static void check_format(int line, const char *fmt, ...) {
  char mine[2048], theirs[2048];
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int m = mnemo_vsnprintf(mine, sizeof mine, fmt, ap);
  int g = vsnprintf(theirs, sizeof theirs, fmt, ap2);
  va_end(ap2);
  va_end(ap);
  checks++;
  if (m != g || strcmp(mine, theirs) != 0) {
    failures++;
    printf("FAIL line %d: format \"%s\": [%s] (%d) vs glibc [%s] (%d)\n",
           line, fmt, mine, m, theirs, g);
  }
}

#define F(...) check_format(__LINE__, __VA_ARGS__)

static void test_printf_integers(void) {
  static const char *flags[] = {"", "-", "+", " ", "0", "#", "-+", "+0",
                                "- ", "#0", "-#"};
  static const char *widths[] = {"", "1", "8", "12"};
  static const char *precs[] = {"", ".", ".0", ".3", ".10"};
  static const char convs[] = "diuoxX";
  static const long long values[] = {0, 1, -1, 42, -42, 255, 65535,
                                     2147483647, -2147483647 - 1,
                                     LLONG_MAX, LLONG_MIN};
  char fmt[64];
  for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
      for (size_t p = 0; p < sizeof precs / sizeof precs[0]; p++)
        for (size_t c = 0; convs[c] != '\0'; c++)
          for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            snprintf(fmt, sizeof fmt, "[%%%s%s%s%c]", flags[f], widths[w],
                     precs[p], convs[c]);
            F(fmt, (int)values[v]);
            snprintf(fmt, sizeof fmt, "[%%%s%s%sll%c]", flags[f], widths[w],
                     precs[p], convs[c]);
            F(fmt, values[v]);
            snprintf(fmt, sizeof fmt, "[%%%s%s%shh%c]", flags[f], widths[w],
                     precs[p], convs[c]);
            F(fmt, (int)values[v]);
            snprintf(fmt, sizeof fmt, "[%%%s%s%sh%c]", flags[f], widths[w],
                     precs[p], convs[c]);
            F(fmt, (int)values[v]);
          }
  F("%ld %lu %lx", -5L, 5UL, 0xdeadbeefUL);
  F("%zu %zd %zx", (size_t)123, (ssize_t)-123, (size_t)0xabc);
  F("%jd %ju", (intmax_t)-9, (uintmax_t)9);
  F("%td", (ptrdiff_t)-77);
  F("%*d|%-*d|%.*d|%*.*d", 6, 42, 6, 42, 4, 7, -8, 3, 5);
  F("%.*d", -1, 0);
}

static void test_printf_other(void) {
  int x = 0;
  F("%s|%10s|%-10s|%.2s|%10.2s|%-10.2s|", "hello", "hi", "hi", "hello",
    "hello", "hello");
  F("%c%c%c|%5c|%-5c|", 'a', 'b', 'c', 'x', 'y');
  F("%%|%%%%|");
  F("%p|%20p|%-20p|", (void *)&x, (void *)&x, (void *)&x);
  F("%p|%10p|%-10p|", (void *)NULL, (void *)NULL, (void *)NULL);
  F("%s|%.3s|%10s|", (char *)NULL, (char *)NULL, (char *)NULL);
  F("no conversions at all");
  F("");
  F("%y|%");
  F("%5c|%05d|%-05d|", 'z', -3, -3);
}

static void test_printf_floats(void) {
  static const char *flags[] = {"", "-", "+", " ", "0", "#", "#0", "-+"};
  static const char *widths[] = {"", "1", "12", "30"};
  static const char *precs[] = {"", ".", ".0", ".1", ".3", ".17", ".40"};
  static const char convs[] = "feEgG";
  double values[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 0.125, 0.1,
                     1.0 / 3.0, 123456789.0, 1e15, 1e16, 1e21, 1e-5, 1e-4,
                     9.9999, 9.99999999, 99999.95, 0.00001234, 5e-324,
                     2.2250738585072014e-308, 1.7976931348623157e308,
                     3.14159265358979, -2.71828, 100.0, 1e100, 0.95, 0.05,
                     0.0, 0.0, 0.0};
  size_t nvalues = sizeof values / sizeof values[0];
  char fmt[64];
  values[nvalues - 3] = INFINITY;
  values[nvalues - 2] = -INFINITY;
  values[nvalues - 1] = NAN;
  for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
      for (size_t p = 0; p < sizeof precs / sizeof precs[0]; p++)
        for (size_t c = 0; convs[c] != '\0'; c++)
          for (size_t v = 0; v < nvalues; v++) {
            snprintf(fmt, sizeof fmt, "[%%%s%s%s%c]", flags[f], widths[w],
                     precs[p], convs[c]);
            F(fmt, values[v]);
          }
  F("%.0f %.0f %.0f %.0f %.0f", 0.5, 1.5, 2.5, 3.5, -0.5);
  F("%f", 1e300);
  F("%.1074f", 5e-324);
  F("%.1100f|", 0.1);
  F("%e %g %G", 1e-300, 1e-300, 1e300);
  F("%Lf %Le", 1.5L, -2.25L);
  F("%F %E", INFINITY, -NAN);
}

static void test_snprintf_bounds(void) {
  char buf[8];
  memset(buf, 'q', sizeof buf);
  int r = mnemo_snprintf(buf, 4, "%s", "abcdef");
  CHECK(r == 6 && strcmp(buf, "abc") == 0 && buf[4] == 'q', "snprintf cut");
  r = mnemo_snprintf(NULL, 0, "%d", 12345);
  CHECK(r == 5, "snprintf count only");
  memset(buf, 'q', sizeof buf);
  r = mnemo_snprintf(buf, 1, "xyz");
  CHECK(r == 3 && buf[0] == '\0' && buf[1] == 'q', "snprintf size 1");
  r = mnemo_sprintf(buf, "%d-%c", 7, 'z');
  CHECK(r == 3 && strcmp(buf, "7-z") == 0, "sprintf");
  int n1 = 0;
  long n2 = 0;
  mnemo_snprintf(buf, sizeof buf, "ab%ncd%ln", &n1, &n2);
  CHECK(n1 == 2 && n2 == 4, "%%n");
}

static void test_output(void) {
  reset_capture();
  CHECK(mnemo_printf("x=%d\n", 5) == 4, "printf return");
  CHECK(mnemo_puts("line") >= 0, "puts");
  CHECK(mnemo_putchar('!') == '!', "putchar");
  CHECK(mnemo_fputs("to err", mnemo_stderr) >= 0, "fputs");
  CHECK(mnemo_fputc('#', mnemo_stderr) == '#', "fputc");
  CHECK(mnemo_putc('%', mnemo_stdout) == '%', "putc");
  CHECK(mnemo_fwrite("abcdef", 2, 3, mnemo_stdout) == 3, "fwrite");
  CHECK(mnemo_fprintf(mnemo_stderr, "[%5s]", "e") == 7, "fprintf");
  CHECK(mnemo_fflush(mnemo_stdout) == 0, "fflush");
  *mnemo___errno_location() = ENOENT;
  mnemo_perror("open");
  mnemo_perror(NULL);
  CHECK(mnemo_fileno(mnemo_stdin) == 0 && mnemo_fileno(mnemo_stdout) == 1 &&
            mnemo_fileno(mnemo_stderr) == 2,
        "fileno");
  const char *want_out = "x=5\nline\n!%abcdef";
  const char *want_err = "to err#[    e]open: No such file or directory\n"
                         "No such file or directory\n";
  CHECK(captured_len[1] == strlen(want_out) &&
            memcmp(captured[1], want_out, captured_len[1]) == 0,
        "stdout text [%.*s]", (int)captured_len[1], captured[1]);
  CHECK(captured_len[2] == strlen(want_err) &&
            memcmp(captured[2], want_err, captured_len[2]) == 0,
        "stderr text [%.*s]", (int)captured_len[2], captured[2]);

  /* Longer than the staging buffer: must arrive whole and in order. */
  char big[1000];
  for (int i = 0; i < 999; i++)
    big[i] = (char)('a' + i % 26);
  big[999] = '\0';
  reset_capture();
  CHECK(mnemo_printf("<%s>", big) == 1001, "long printf return");
  CHECK(captured_len[1] == 1001 && captured[1][0] == '<' &&
            memcmp(captured[1] + 1, big, 999) == 0 && captured[1][1000] == '>',
        "long printf text");
}

int main(void) {
  test_memory();
  test_strings();
  test_ctype();
  test_strto();
  test_stdlib();
  test_printf_integers();
  test_printf_other();
  test_printf_floats();
  test_snprintf_bounds();
  test_output();
  printf("libc self-test: %d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
