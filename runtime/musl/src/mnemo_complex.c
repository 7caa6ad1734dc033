/* Complex multiplication and division as C's Annex G defines them, under
 * the names clang calls (the compiler's runtime library has them natively,
 * libc does not): a product whose parts both come out NaN is worked out
 * again where an operand was infinite, and a quotient is scaled so that
 * its denominator neither overflows nor underflows. Long double is double
 * here (-mlong-double-64), so the double and float pairs are all a
 * program needs. Each works in its own precision, as the native ones do:
 * a float product that overflows to infinity must do so here too. */
#include <math.h>

/* The pair for type T, whose <math.h> functions carry the suffix M(). */
#define COMPLEX_OPS(T, MUL, DIV, M)                                            \
  /* An infinite part keeps its sign at magnitude 1, a finite one is 0     \
   * with its sign: the operand reduced to the direction Annex G follows. */ \
  static T box_##T(T v) { return M(copysign)(isinf(v) ? 1 : 0, v); }         \
  static T unnan_##T(T v) { return isnan(v) ? M(copysign)(0, v) : v; }       \
                                                                               \
  T _Complex MUL(T a, T b, T c, T d) {                                         \
    T ac = a * c, bd = b * d, ad = a * d, bc = b * c;                          \
    T re = ac - bd, im = ad + bc;                                              \
    if (isnan(re) && isnan(im)) {                                              \
      int again = 0;                                                           \
      if (isinf(a) || isinf(b)) {                                              \
        a = box_##T(a);                                                        \
        b = box_##T(b);                                                        \
        c = unnan_##T(c);                                                      \
        d = unnan_##T(d);                                                      \
        again = 1;                                                             \
      }                                                                        \
      if (isinf(c) || isinf(d)) {                                              \
        c = box_##T(c);                                                        \
        d = box_##T(d);                                                        \
        a = unnan_##T(a);                                                      \
        b = unnan_##T(b);                                                      \
        again = 1;                                                             \
      }                                                                        \
      if (!again && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {     \
        a = unnan_##T(a);                                                      \
        b = unnan_##T(b);                                                      \
        c = unnan_##T(c);                                                      \
        d = unnan_##T(d);                                                      \
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
        a = box_##T(a);                                                        \
        b = box_##T(b);                                                        \
        re = (T)INFINITY * (a * c + b * d);                                    \
        im = (T)INFINITY * (b * c - a * d);                                    \
      } else if (isinf(scale) && scale > 0 && isfinite(a) && isfinite(b)) {    \
        c = box_##T(c);                                                        \
        d = box_##T(d);                                                        \
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
