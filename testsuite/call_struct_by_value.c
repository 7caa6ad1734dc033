/* A struct of more than 16 bytes passed by value is a copy: clang passes
 * a pointer marked byval, and the callee's writes to its parameter must
 * not reach the caller's struct (they did, the copy elided by -O2's
 * memcpyopt, which byval allows). To a variadic function the struct's
 * bytes travel on the stack, where va_arg reads them: two of them (one
 * holding a long double, at a multiple of 16), a 16-byte struct in two
 * registers and an int after them. The callee's parameter, passed on by
 * value again, is copied again. Structs of 16 bytes go in registers, a
 * double and a long or two longs, until the registers run out: from
 * there clang passes each by value too, and va_arg reads it from the
 * stack. A symbolic byte, copied in the structs,
 * is 'k' or not: two paths, each printing what every callee saw.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <stdarg.h>
#include <stdio.h>

struct big {
  long a[4];
  char tag;
};
struct wide {
  long double x;
  int n;
};
struct pair {
  long lo, hi;
};

__attribute__((noinline)) static long inner(struct big b) {
  b.a[1] += 100;
  return b.a[1];
}

__attribute__((noinline)) static long outer(struct big b) {
  b.a[0] = -1;
  long seen = inner(b);
  /* inner's write went to its own copy. */
  printf("outer: a[0]=%ld a[1]=%ld inner saw %ld\n", b.a[0], b.a[1], seen);
  return b.tag == 'k' ? 1 : 0;
}

__attribute__((noinline)) static void many(int n, ...) {
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    struct big b = va_arg(ap, struct big);
    printf("many: big %ld %ld %ld %ld '%c'\n", b.a[0], b.a[1], b.a[2], b.a[3], b.tag);
  }
  struct wide w = va_arg(ap, struct wide);
  struct pair p = va_arg(ap, struct pair);
  int last = va_arg(ap, int);
  va_end(ap);
  printf("many: wide %.3Lf %d pair %ld %ld last %d\n", w.x, w.n, p.lo, p.hi, last);
}

struct mix {
  double d;
  long l;
};

__attribute__((noinline)) static void pairs(int n, ...) {
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    struct mix m = va_arg(ap, struct mix);
    struct pair p = va_arg(ap, struct pair);
    printf("pairs: %g %ld %ld %ld\n", m.d, m.l, p.lo, p.hi);
  }
  va_end(ap);
}

int main(void) {
  char c;
  klee_make_symbolic(&c, sizeof c, "c");
  struct big b = {{1, 2, 3, 4}, c};
  struct big d = {{5, 6, 7, 8}, 'd'};
  long r = outer(b);
  printf("main: a[0]=%ld a[1]=%ld outer gave %ld\n", b.a[0], b.a[1], r);
  struct wide w = {2.5L, 9};
  struct pair p = {11, 12};
  many(2, b, d, w, p, 13);
  struct mix m[5];
  struct pair q[5];
  for (int i = 0; i < 5; i++) {
    m[i] = (struct mix){i + 0.5, 10 * i};
    q[i] = (struct pair){100 + i, 200 + i};
  }
  pairs(5, m[0], q[0], m[1], q[1], m[2], q[2], m[3], q[3], m[4], q[4]);
  if (b.tag == 'k')
    puts("k");
  return 0;
}
