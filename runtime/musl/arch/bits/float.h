/* The engine has no 80-bit floating point: musl and the programs it runs
 * are compiled with -mlong-double-64, so long double is IEEE double, and
 * its limits are double's (the compiler's own macros give them). */
#ifdef __FLT_EVAL_METHOD__
#define FLT_EVAL_METHOD __FLT_EVAL_METHOD__
#else
#define FLT_EVAL_METHOD 0
#endif

#define LDBL_TRUE_MIN __DBL_DENORM_MIN__
#define LDBL_MIN __DBL_MIN__
#define LDBL_MAX __DBL_MAX__
#define LDBL_EPSILON __DBL_EPSILON__

#define LDBL_MANT_DIG __DBL_MANT_DIG__
#define LDBL_MIN_EXP __DBL_MIN_EXP__
#define LDBL_MAX_EXP __DBL_MAX_EXP__

#define LDBL_DIG __DBL_DIG__
#define LDBL_MIN_10_EXP __DBL_MIN_10_EXP__
#define LDBL_MAX_10_EXP __DBL_MAX_10_EXP__

#define DECIMAL_DIG __DECIMAL_DIG__
