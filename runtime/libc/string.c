/*
 * string.h and strings.h: byte-at-a-time loops, so that the interpreter
 * sees every access (and every symbolic byte) individually.
 */
#include "mnemo_libc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

MNEMO_WEAK void *memcpy(void *restrict dst, const void *restrict src,
                        size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (size_t i = 0; i < n; i++)
    d[i] = s[i];
  return dst;
}

MNEMO_WEAK void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d == s || n == 0)
    return dst;
  /* Comparing unrelated pointers is fine here: both build and engine use
   * flat addresses, and only the copy direction depends on it. */
  if ((uintptr_t)d < (uintptr_t)s) {
    for (size_t i = 0; i < n; i++)
      d[i] = s[i];
  } else {
    for (size_t i = n; i > 0; i--)
      d[i - 1] = s[i - 1];
  }
  return dst;
}

MNEMO_WEAK void *memset(void *dst, int c, size_t n) {
  unsigned char *d = dst;
  for (size_t i = 0; i < n; i++)
    d[i] = (unsigned char)c;
  return dst;
}

MNEMO_WEAK void bzero(void *dst, size_t n) { memset(dst, 0, n); }

MNEMO_WEAK int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  for (size_t i = 0; i < n; i++) {
    if (x[i] != y[i])
      return x[i] < y[i] ? -1 : 1;
  }
  return 0;
}

MNEMO_WEAK void *memchr(const void *s, int c, size_t n) {
  const unsigned char *p = s;
  for (size_t i = 0; i < n; i++) {
    if (p[i] == (unsigned char)c)
      return (void *)(p + i);
  }
  return NULL;
}

MNEMO_WEAK size_t strlen(const char *s) {
  size_t n = 0;
  while (s[n] != '\0')
    n++;
  return n;
}

MNEMO_WEAK size_t strnlen(const char *s, size_t max) {
  size_t n = 0;
  while (n < max && s[n] != '\0')
    n++;
  return n;
}

MNEMO_WEAK int strcmp(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a;
  const unsigned char *y = (const unsigned char *)b;
  for (;; x++, y++) {
    if (*x != *y)
      return *x < *y ? -1 : 1;
    if (*x == '\0')
      return 0;
  }
}

MNEMO_WEAK int strncmp(const char *a, const char *b, size_t n) {
  const unsigned char *x = (const unsigned char *)a;
  const unsigned char *y = (const unsigned char *)b;
  for (size_t i = 0; i < n; i++) {
    if (x[i] != y[i])
      return x[i] < y[i] ? -1 : 1;
    if (x[i] == '\0')
      return 0;
  }
  return 0;
}

static int ascii_lower(int c) {
  return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

MNEMO_WEAK int strcasecmp(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a;
  const unsigned char *y = (const unsigned char *)b;
  for (;; x++, y++) {
    int cx = ascii_lower(*x), cy = ascii_lower(*y);
    if (cx != cy)
      return cx - cy;
    if (cx == '\0')
      return 0;
  }
}

MNEMO_WEAK int strncasecmp(const char *a, const char *b, size_t n) {
  const unsigned char *x = (const unsigned char *)a;
  const unsigned char *y = (const unsigned char *)b;
  for (size_t i = 0; i < n; i++) {
    int cx = ascii_lower(x[i]), cy = ascii_lower(y[i]);
    if (cx != cy)
      return cx - cy;
    if (cx == '\0')
      return 0;
  }
  return 0;
}

MNEMO_WEAK char *strcpy(char *restrict dst, const char *restrict src) {
  size_t i = 0;
  for (; src[i] != '\0'; i++)
    dst[i] = src[i];
  dst[i] = '\0';
  return dst;
}

MNEMO_WEAK char *strncpy(char *restrict dst, const char *restrict src,
                         size_t n) {
  size_t i = 0;
  for (; i < n && src[i] != '\0'; i++)
    dst[i] = src[i];
  for (; i < n; i++)
    dst[i] = '\0';
  return dst;
}

MNEMO_WEAK char *strcat(char *restrict dst, const char *restrict src) {
  strcpy(dst + strlen(dst), src);
  return dst;
}

MNEMO_WEAK char *strncat(char *restrict dst, const char *restrict src,
                         size_t n) {
  char *d = dst + strlen(dst);
  size_t i = 0;
  for (; i < n && src[i] != '\0'; i++)
    d[i] = src[i];
  d[i] = '\0';
  return dst;
}

MNEMO_WEAK char *strchr(const char *s, int c) {
  for (;; s++) {
    if (*s == (char)c)
      return (char *)s;
    if (*s == '\0')
      return NULL;
  }
}

MNEMO_WEAK char *strrchr(const char *s, int c) {
  const char *found = NULL;
  for (;; s++) {
    if (*s == (char)c)
      found = s;
    if (*s == '\0')
      return (char *)found;
  }
}

MNEMO_WEAK char *strstr(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  if (n == 0)
    return (char *)hay;
  for (; *hay != '\0'; hay++) {
    if (strncmp(hay, needle, n) == 0)
      return (char *)hay;
  }
  return NULL;
}

MNEMO_WEAK size_t strspn(const char *s, const char *accept) {
  size_t n = 0;
  while (s[n] != '\0' && strchr(accept, s[n]) != NULL)
    n++;
  return n;
}

MNEMO_WEAK size_t strcspn(const char *s, const char *reject) {
  size_t n = 0;
  while (s[n] != '\0' && strchr(reject, s[n]) == NULL)
    n++;
  return n;
}

MNEMO_WEAK char *strpbrk(const char *s, const char *accept) {
  s += strcspn(s, accept);
  return *s != '\0' ? (char *)s : NULL;
}

MNEMO_WEAK char *strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d != NULL)
    memcpy(d, s, n);
  return d;
}

MNEMO_WEAK char *strndup(const char *s, size_t max) {
  size_t n = strnlen(s, max);
  char *d = malloc(n + 1);
  if (d != NULL) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

MNEMO_WEAK char *strtok_r(char *restrict s, const char *restrict delim,
                          char **restrict save) {
  if (s == NULL)
    s = *save;
  if (s == NULL)
    return NULL;
  s += strspn(s, delim);
  if (*s == '\0') {
    *save = s;
    return NULL;
  }
  char *end = s + strcspn(s, delim);
  if (*end == '\0') {
    *save = end;
  } else {
    *end = '\0';
    *save = end + 1;
  }
  return s;
}

MNEMO_WEAK char *strtok(char *restrict s, const char *restrict delim) {
  static char *save;
  return strtok_r(s, delim, &save);
}

/* Messages as glibc words them, for perror and strerror. */
static const char *const mnemo_errlist[] = {
    "Success",
    "Operation not permitted",
    "No such file or directory",
    "No such process",
    "Interrupted system call",
    "Input/output error",
    "No such device or address",
    "Argument list too long",
    "Exec format error",
    "Bad file descriptor",
    "No child processes",
    "Resource temporarily unavailable",
    "Cannot allocate memory",
    "Permission denied",
    "Bad address",
    "Block device required",
    "Device or resource busy",
    "File exists",
    "Invalid cross-device link",
    "No such device",
    "Not a directory",
    "Is a directory",
    "Invalid argument",
    "Too many open files in system",
    "Too many open files",
    "Inappropriate ioctl for device",
    "Text file busy",
    "File too large",
    "No space left on device",
    "Illegal seek",
    "Read-only file system",
    "Too many links",
    "Broken pipe",
    "Numerical argument out of domain",
    "Numerical result out of range",
};

MNEMO_WEAK char *strerror(int errnum) {
  static char unknown[32];
  if (errnum >= 0 &&
      (size_t)errnum < sizeof mnemo_errlist / sizeof mnemo_errlist[0])
    return (char *)mnemo_errlist[errnum];
  snprintf(unknown, sizeof unknown, "Unknown error %d", errnum);
  return unknown;
}
