/* A remainder by a constant: a 3-letter symbolic word looked up in a hash
 * table of 1,021 buckets (open addressing), as a macro processor or an
 * interpreter looks up its names. */
#include <klee/klee.h>
#include <string.h>

#define SIZE 1021

static const char *names[] = {"define", "dnl", "len", "index", "eval",
                              "incr", "decr", "shift", "ifdef", "ifelse"};
static const char *table[SIZE];

static unsigned hash(const char *s) {
  unsigned h = 0;
  while (*s)
    h = (h << 7) + (h >> 25) + (unsigned char)*s++;
  return h;
}

int main(void) {
  for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
    unsigned b = hash(names[i]) % SIZE;
    while (table[b])
      b = (b + 1) % SIZE;
    table[b] = names[i];
  }
  char word[4];
  klee_make_symbolic(word, sizeof word, "word");
  klee_assume(word[3] == 0);
  for (unsigned b = hash(word) % SIZE; table[b]; b = (b + 1) % SIZE)
    if (!strcmp(table[b], word))
      return 1;
  return 0;
}
