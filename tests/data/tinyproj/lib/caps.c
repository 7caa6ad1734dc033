#include "config.h"
#include "caps.h"

/* Upper-cases s in place; only ASCII letters change. */
void caps(char *s)
{
  for (; *s; s++)
    if (*s >= 'a' && *s <= 'z')
      *s = (char) (*s - 'a' + 'A');
}
