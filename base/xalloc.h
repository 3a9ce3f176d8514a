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

/* The one way an array grows. GROW makes room for arr[n] in an array with
 * a capacity (doubling from 16); GROW_ONE sizes an array without one to
 * n + 1 elements (short lists read once, such as a config's). */
#define GROW(arr, n, cap) do { if ((n) >= (cap)) { (cap) = (cap) ? 2 * (cap) : 16; \
    (arr) = xrealloc((arr), (cap) * sizeof *(arr)); } } while (0)
#define GROW_ONE(arr, n) ((arr) = xrealloc((arr), ((n) + 1) * sizeof *(arr)))
#endif
