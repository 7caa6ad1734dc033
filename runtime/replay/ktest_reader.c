/*
 * Parser for KLEE's .ktest format: "KTEST" (or the older "BOUT\n"), a
 * big-endian u32 version, the program arguments, from version 2 on the
 * sym-argv counts, then the objects as (name, bytes) pairs. Every length is
 * checked against what is left of the file, so a truncated or corrupt file
 * gives a message instead of a crash.
 */
#include "ktest_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
  const unsigned char *p;
  size_t left;
};

static int take_u32(struct cursor *c, uint32_t *v) {
  if (c->left < 4)
    return -1;
  *v = ((uint32_t)c->p[0] << 24) | ((uint32_t)c->p[1] << 16) |
       ((uint32_t)c->p[2] << 8) | (uint32_t)c->p[3];
  c->p += 4;
  c->left -= 4;
  return 0;
}

static int take_bytes(struct cursor *c, uint32_t n, const unsigned char **out) {
  if (c->left < n)
    return -1;
  *out = c->p;
  c->p += n;
  c->left -= n;
  return 0;
}

int ktest_parse(unsigned char *data, size_t size, struct ktest *out,
                char *err, size_t err_size) {
  struct cursor c = {data, size};
  const unsigned char *magic;
  const unsigned char *skip;
  uint32_t version, nargs, nobjs, i;

  out->data = data;
  out->num_objects = 0;
  out->objects = NULL;
  if (take_bytes(&c, 5, &magic) != 0 ||
      (memcmp(magic, "KTEST", 5) != 0 && memcmp(magic, "BOUT\n", 5) != 0)) {
    snprintf(err, err_size, "not a ktest file (bad magic)");
    return -1;
  }
  if (take_u32(&c, &version) != 0) {
    snprintf(err, err_size, "truncated ktest file (in the header)");
    return -1;
  }
  if (version < 1 || version > 3) {
    snprintf(err, err_size, "unsupported ktest version %u", version);
    return -1;
  }
  if (take_u32(&c, &nargs) != 0) {
    snprintf(err, err_size, "truncated ktest file (in the header)");
    return -1;
  }
  for (i = 0; i < nargs; i++) {
    uint32_t len;
    if (take_u32(&c, &len) != 0 || take_bytes(&c, len, &skip) != 0) {
      snprintf(err, err_size, "truncated ktest file (in argument %u of %u)",
               i, nargs);
      return -1;
    }
  }
  if (version >= 2) {
    uint32_t sym_argvs, sym_argv_len;
    if (take_u32(&c, &sym_argvs) != 0 || take_u32(&c, &sym_argv_len) != 0) {
      snprintf(err, err_size, "truncated ktest file (in the header)");
      return -1;
    }
  }
  if (take_u32(&c, &nobjs) != 0) {
    snprintf(err, err_size, "truncated ktest file (in the header)");
    return -1;
  }
  /* Each object needs at least 8 bytes, which bounds the allocation by the
   * file's size even when the count field is garbage. */
  if (nobjs > c.left / 8) {
    snprintf(err, err_size, "truncated ktest file (in object %zu of %u)",
             c.left / 8, nobjs);
    return -1;
  }
  out->objects = calloc(nobjs == 0 ? 1 : nobjs, sizeof *out->objects);
  if (out->objects == NULL) {
    snprintf(err, err_size, "out of memory reading the ktest file");
    return -1;
  }
  for (i = 0; i < nobjs; i++) {
    struct ktest_object *o = &out->objects[i];
    const unsigned char *name;
    if (take_u32(&c, &o->name_len) != 0 ||
        take_bytes(&c, o->name_len, &name) != 0 ||
        take_u32(&c, &o->size) != 0 ||
        take_bytes(&c, o->size, &o->bytes) != 0) {
      snprintf(err, err_size, "truncated ktest file (in object %u of %u)", i,
               nobjs);
      free(out->objects);
      out->objects = NULL;
      return -1;
    }
    o->name = (const char *)name;
  }
  out->num_objects = nobjs;
  return 0;
}
