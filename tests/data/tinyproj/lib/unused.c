#include "caps.h"

/* In the archive but needed by no program: the linker leaves it out, and
   so must the program's bitcode. */
int tiny_unused(int x)
{
  return x * 3;
}
