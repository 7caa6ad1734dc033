/*
 * ctype.h for the "C" locale.
 *
 * Programs compiled against glibc expand isalpha(c) & co. to lookups in the
 * tables returned by __ctype_b_loc, __ctype_tolower_loc and
 * __ctype_toupper_loc, so those tables must have glibc's layout: indexable
 * from -128 (signed char values) to 255, with glibc's bit assignments.
 */
#include "mnemo_libc.h"

#include <ctype.h>

#define CT_UPPER(c) ((c) >= 'A' && (c) <= 'Z')
#define CT_LOWER(c) ((c) >= 'a' && (c) <= 'z')
#define CT_DIGIT(c) ((c) >= '0' && (c) <= '9')
#define CT_ALPHA(c) (CT_UPPER(c) || CT_LOWER(c))
#define CT_XDIGIT(c)                                                         \
  (CT_DIGIT(c) || ((c) >= 'a' && (c) <= 'f') || ((c) >= 'A' && (c) <= 'F'))
#define CT_SPACE(c) ((c) == ' ' || ((c) >= '\t' && (c) <= '\r'))
#define CT_PRINT(c) ((c) >= 0x20 && (c) < 0x7f)
#define CT_GRAPH(c) ((c) > 0x20 && (c) < 0x7f)
#define CT_BLANK(c) ((c) == ' ' || (c) == '\t')
#define CT_CNTRL(c) (((c) >= 0 && (c) < 0x20) || (c) == 0x7f)
#define CT_PUNCT(c) (CT_GRAPH(c) && !CT_ALPHA(c) && !CT_DIGIT(c))

/* Classification bits of one character, as a constant expression. */
#define CT(c)                                                                \
  (unsigned short)((CT_UPPER(c) ? _ISupper : 0) |                           \
                   (CT_LOWER(c) ? _ISlower : 0) |                           \
                   (CT_ALPHA(c) ? _ISalpha : 0) |                           \
                   (CT_DIGIT(c) ? _ISdigit : 0) |                           \
                   (CT_XDIGIT(c) ? _ISxdigit : 0) |                         \
                   (CT_SPACE(c) ? _ISspace : 0) |                           \
                   (CT_PRINT(c) ? _ISprint : 0) |                           \
                   (CT_GRAPH(c) ? _ISgraph : 0) |                           \
                   (CT_BLANK(c) ? _ISblank : 0) |                           \
                   (CT_CNTRL(c) ? _IScntrl : 0) |                           \
                   (CT_PUNCT(c) ? _ISpunct : 0) |                           \
                   ((CT_ALPHA(c) || CT_DIGIT(c)) ? _ISalnum : 0))

#define CT8(b) CT(b), CT(b + 1), CT(b + 2), CT(b + 3), CT(b + 4), CT(b + 5), \
               CT(b + 6), CT(b + 7)
#define CT32(b) CT8(b), CT8(b + 8), CT8(b + 16), CT8(b + 24)
#define Z32 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0

/* Index 0 of the table is character -128; characters outside ASCII
 * (negative ones and 128..255) belong to no class in the "C" locale. */
static const unsigned short mnemo_ctype_b[384] = {
    Z32,      Z32,       Z32,       Z32,       /* -128 .. -1 */
    CT32(0),  CT32(32),  CT32(64),  CT32(96),  /* 0 .. 127 */
    Z32,      Z32,       Z32,       Z32,       /* 128 .. 255 */
};

/* tolower/toupper of a value outside ASCII is the value itself, except that
 * glibc maps -128..-2 to the unsigned char they stand for (EOF stays -1). */
#define TL(c) (CT_UPPER(c) ? (c) - 'A' + 'a' : ((c) < -1 ? (c) + 256 : (c)))
#define TU(c) (CT_LOWER(c) ? (c) - 'a' + 'A' : ((c) < -1 ? (c) + 256 : (c)))
#define TL8(b) TL(b), TL(b + 1), TL(b + 2), TL(b + 3), TL(b + 4), TL(b + 5), \
               TL(b + 6), TL(b + 7)
#define TU8(b) TU(b), TU(b + 1), TU(b + 2), TU(b + 3), TU(b + 4), TU(b + 5), \
               TU(b + 6), TU(b + 7)
#define TL64(b) TL8(b), TL8(b + 8), TL8(b + 16), TL8(b + 24), TL8(b + 32),   \
                TL8(b + 40), TL8(b + 48), TL8(b + 56)
#define TU64(b) TU8(b), TU8(b + 8), TU8(b + 16), TU8(b + 24), TU8(b + 32),   \
                TU8(b + 40), TU8(b + 48), TU8(b + 56)

static const int32_t mnemo_ctype_tolower[384] = {
    TL64(-128), TL64(-64), TL64(0), TL64(64), TL64(128), TL64(192),
};
static const int32_t mnemo_ctype_toupper[384] = {
    TU64(-128), TU64(-64), TU64(0), TU64(64), TU64(128), TU64(192),
};

static const unsigned short *mnemo_ctype_b_ptr = mnemo_ctype_b + 128;
static const int32_t *mnemo_ctype_tolower_ptr = mnemo_ctype_tolower + 128;
static const int32_t *mnemo_ctype_toupper_ptr = mnemo_ctype_toupper + 128;

MNEMO_WEAK const unsigned short **__ctype_b_loc(void) {
  return &mnemo_ctype_b_ptr;
}

MNEMO_WEAK const int32_t **__ctype_tolower_loc(void) {
  return &mnemo_ctype_tolower_ptr;
}

MNEMO_WEAK const int32_t **__ctype_toupper_loc(void) {
  return &mnemo_ctype_toupper_ptr;
}

/* The functions test ranges directly instead of reading the table, so a
 * symbolic argument becomes a comparison rather than a symbolic-index load. */
MNEMO_WEAK int isupper(int c) { return CT_UPPER(c); }
MNEMO_WEAK int islower(int c) { return CT_LOWER(c); }
MNEMO_WEAK int isalpha(int c) { return CT_ALPHA(c); }
MNEMO_WEAK int isdigit(int c) { return CT_DIGIT(c); }
MNEMO_WEAK int isxdigit(int c) { return CT_XDIGIT(c); }
MNEMO_WEAK int isspace(int c) { return CT_SPACE(c); }
MNEMO_WEAK int isprint(int c) { return CT_PRINT(c); }
MNEMO_WEAK int isgraph(int c) { return CT_GRAPH(c); }
MNEMO_WEAK int isblank(int c) { return CT_BLANK(c); }
MNEMO_WEAK int iscntrl(int c) { return CT_CNTRL(c); }
MNEMO_WEAK int ispunct(int c) { return CT_PUNCT(c); }
MNEMO_WEAK int isalnum(int c) { return CT_ALPHA(c) || CT_DIGIT(c); }
MNEMO_WEAK int isascii(int c) { return (c & ~0x7f) == 0; }
MNEMO_WEAK int toascii(int c) { return c & 0x7f; }
MNEMO_WEAK int tolower(int c) { return CT_UPPER(c) ? c - 'A' + 'a' : c; }
MNEMO_WEAK int toupper(int c) { return CT_LOWER(c) ? c - 'a' + 'A' : c; }
