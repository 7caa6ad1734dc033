/* Complex multiplication and division as C's Annex G defines them, under
 * the names clang calls (the compiler's runtime library has them natively,
 * libc does not): a product whose parts both come out NaN is worked out
 * again where an operand was infinite, and a quotient is scaled so that
 * its denominator neither overflows nor underflows. Each works in its own
 * precision, as the native ones do: a float product that overflows to
 * infinity must do so here too. The long double pair's result, two 80-bit
 * values returned whole, is wider than a register of the engine: a call
 * to it ends its path as unsupported, naming the type, as a call to
 * musl's long double complex functions does. */
#include <math.h>

/* The pair for type T, whose <math.h> functions carry the suffix M(). */
#define COMPLEX_OPS(T, MUL, DIV, M)                                            \
  /* An infinite part keeps its sign at magnitude 1, a finite one is 0     \
   * with its sign: the operand reduced to the direction Annex G follows. */ \
  static T box_##M(T v) { return M(copysign)(isinf(v) ? 1 : 0, v); }         \
  static T unnan_##M(T v) { return isnan(v) ? M(copysign)(0, v) : v; }       \
                                                                               \
  T _Complex MUL(T a, T b, T c, T d) {                                         \
    T ac = a * c, bd = b * d, ad = a * d, bc = b * c;                          \
    T re = ac - bd, im = ad + bc;                                              \
    if (isnan(re) && isnan(im)) {                                              \
      int again = 0;                                                           \
      if (isinf(a) || isinf(b)) {                                              \
        a = box_##M(a);                                                        \
        b = box_##M(b);                                                        \
        c = unnan_##M(c);                                                      \
        d = unnan_##M(d);                                                      \
        again = 1;                                                             \
      }                                                                        \
      if (isinf(c) || isinf(d)) {                                              \
        c = box_##M(c);                                                        \
        d = box_##M(d);                                                        \
        a = unnan_##M(a);                                                      \
        b = unnan_##M(b);                                                      \
        again = 1;                                                             \
      }                                                                        \
      if (!again && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {     \
        a = unnan_##M(a);                                                      \
        b = unnan_##M(b);                                                      \
        c = unnan_##M(c);                                                      \
        d = unnan_##M(d);                                                      \
        again = 1;                                                             \
      }                                                                        \
      if (again) {                                                             \
        re = (T)INFINITY * (a * c - b * d);                                    \
        im = (T)INFINITY * (a * d + b * c);                                    \
      }                                                                        \
    }                                                                          \
    return (T _Complex){re, im};                                               \
  }                                                                            \
                                                                               \
  T _Complex DIV(T a, T b, T c, T d) {                                         \
    T scale = M(logb)(M(fmax)(M(fabs)(c), M(fabs)(d)));                        \
    int shift = 0;                                                             \
    if (isfinite(scale)) {                                                     \
      shift = (int)scale;                                                      \
      c = M(scalbn)(c, -shift);                                                \
      d = M(scalbn)(d, -shift);                                                \
    }                                                                          \
    T denom = c * c + d * d;                                                   \
    T re = M(scalbn)((a * c + b * d) / denom, -shift);                         \
    T im = M(scalbn)((b * c - a * d) / denom, -shift);                         \
    if (isnan(re) && isnan(im)) {                                              \
      if (denom == 0 && (!isnan(a) || !isnan(b))) {                            \
        re = M(copysign)((T)INFINITY, c) * a;                                  \
        im = M(copysign)((T)INFINITY, c) * b;                                  \
      } else if ((isinf(a) || isinf(b)) && isfinite(c) && isfinite(d)) {       \
        a = box_##M(a);                                                        \
        b = box_##M(b);                                                        \
        re = (T)INFINITY * (a * c + b * d);                                    \
        im = (T)INFINITY * (b * c - a * d);                                    \
      } else if (isinf(scale) && scale > 0 && isfinite(a) && isfinite(b)) {    \
        c = box_##M(c);                                                        \
        d = box_##M(d);                                                        \
        re = 0 * (a * c + b * d);                                              \
        im = 0 * (b * c - a * d);                                              \
      }                                                                        \
    }                                                                          \
    return (T _Complex){re, im};                                               \
  }

#define DOUBLE(name) name
#define FLOAT(name) name##f
COMPLEX_OPS(double, __muldc3, __divdc3, DOUBLE)
COMPLEX_OPS(float, __mulsc3, __divsc3, FLOAT)
#define LONG_DOUBLE(name) name##l
COMPLEX_OPS(long double, __mulxc3, __divxc3, LONG_DOUBLE)
