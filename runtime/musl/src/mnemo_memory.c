/* The model's mappings: anonymous memory, or a private copy of a file's
 * bytes, in the program's memory. A mapping is whole pages, as the
 * machine's are: what lies past `len` in its last page is readable, the
 * file's bytes up to its end and zeros after them. libopts reads an
 * option file it maps as a string, relying on the zeros past the end of
 * a file whose size is no whole page. A page of a file's mapping that
 * lies wholly past the file's end is not there: natively a touch of it is
 * SIGBUS, and in the engine a pointer error, as the object in memory ends
 * with the file's last page. */
#include "mnemo_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct mapping {
  char *addr;
  unsigned long len;
  struct mapping *next;
};
static struct mapping *mappings;

/* `n` bytes rounded up to whole pages. */
static unsigned long whole_pages(unsigned long n) {
  return (n + PAGE_SIZE - 1) & -(unsigned long)PAGE_SIZE;
}

/* `file` is the descriptor `fd` names, if any: an anonymous mapping takes
 * none. Where the mapping goes is the model's to choose (MAP_FIXED:
 * EINVAL), and what it may be used for is not kept. */
long __mnemo_mmap(unsigned long len, long flags, struct mnemo_desc *file, long off) {
  if (len == 0 || (flags & MAP_FIXED))
    return -EINVAL;
  if (len > -(unsigned long)PAGE_SIZE)
    return -ENOMEM;
  unsigned long size = whole_pages(len);
  /* The pages in memory: all of an anonymous mapping's; those of a
   * file's that hold some of its bytes. */
  unsigned long backed = size;
  if (flags & MAP_ANONYMOUS) {
    file = 0;
  } else {
    if (!file || file->kind != MNEMO_FILE || !__mnemo_readable(file))
      return -EBADF;
    if (off < 0 || off % PAGE_SIZE)
      return -EINVAL;
    unsigned long left = file->file->size > (unsigned long)off ? file->file->size - off : 0;
    if (left < backed)
      backed = whole_pages(left);
  }
  struct mapping *m = malloc(sizeof *m);
  /* None for an empty file: the engine's allocator gives even an object
   * of no bytes an address of its own. */
  char *p = calloc(1, backed);
  if (!m || !p)
    return -ENOMEM;
  if (file)
    __mnemo_read_at(file->file, p, backed, off);
  m->addr = p;
  m->len = size;
  m->next = mappings;
  mappings = m;
  return (long)p;
}

/* Only whole mappings are unmapped (a part of one: EINVAL). */
long __mnemo_munmap(long addr) {
  for (struct mapping **m = &mappings; *m; m = &(*m)->next) {
    if ((long)(*m)->addr == addr) {
      struct mapping *gone = *m;
      *m = gone->next;
      free(gone->addr);
      free(gone);
      return 0;
    }
  }
  return -EINVAL;
}

/* The model keeps no page tables: the bytes of its own mappings are
 * resident, as their pages would be once touched, and every other address
 * is unmapped (ENOMEM). gnulib's stack-overflow handler, which probes the
 * stack this way where /proc/self/maps cannot be read, finds no stack and
 * is not installed. */
long __mnemo_mincore(long addr, unsigned long len, unsigned char *vec) {
  for (struct mapping *m = mappings; m; m = m->next) {
    unsigned long start = (unsigned long)m->addr;
    if ((unsigned long)addr >= start && len <= m->len &&
        (unsigned long)addr - start <= m->len - len) {
      memset(vec, 1, whole_pages(len) / PAGE_SIZE);
      return 0;
    }
  }
  return -ENOMEM;
}
