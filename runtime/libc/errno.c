/* errno: glibc's <errno.h> expands `errno` to (*__errno_location()). */
#include "mnemo_libc.h"

#include <errno.h>

static int mnemo_errno_value;

MNEMO_WEAK int *__errno_location(void) { return &mnemo_errno_value; }
