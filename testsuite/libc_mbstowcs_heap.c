/* mbstowcs counting an ASCII string at the start of an 11-byte heap
 * buffer, in the default locale (UTF-8 in musl, so the multibyte code
 * runs). musl's GNU C variant counts four bytes at a time and reads the
 * word at offset 8, past the buffer's end: natively no run can fault
 * there, and the runtime's build counts byte by byte. The first byte is
 * 'x' or NUL: one path each, with no pointer error.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <klee/klee.h>

int main(void) {
  setlocale(LC_ALL, "");
  char *s = malloc(11);
  if (!s)
    return 2;
  memcpy(s, "?bcdefghij", 11);
  char c;
  klee_make_symbolic(&c, 1, "c");
  klee_assume((c == 'x') | (c == '\0'));
  s[0] = c;
  size_t n = mbstowcs(NULL, s, 0);
  free(s);
  return n == 10 ? 10 : n == 0 ? 11 : 1;
}
