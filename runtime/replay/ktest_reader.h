/* Reading .ktest files for native replay (KLEE's format, versions 1-3). */
#ifndef MNEMO_KTEST_READER_H
#define MNEMO_KTEST_READER_H

#include <stddef.h>
#include <stdint.h>

/* One symbolic input: name and bytes point into the file's buffer. */
struct ktest_object {
  const char *name;
  uint32_t name_len;
  const unsigned char *bytes;
  uint32_t size;
};

/* A parsed test; objects are in the order the program created them. */
struct ktest {
  unsigned char *data;
  uint32_t num_objects;
  struct ktest_object *objects;
};

/* Parses a whole file image. On failure returns -1 and writes a one-line
 * reason into err (which never exceeds err_size bytes). */
int ktest_parse(unsigned char *data, size_t size, struct ktest *out,
                char *err, size_t err_size);

#endif /* MNEMO_KTEST_READER_H */
