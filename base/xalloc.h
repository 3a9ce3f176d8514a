/* Allocation that cannot fail quietly: out of memory, dsim stops at once
 * rather than run on with half a table. */
#ifndef DSIM_XALLOC_H
#define DSIM_XALLOC_H
#include <stdlib.h>

static inline void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q) abort();
    return q;
}
#endif
