/* The calls that close or replace an fd number: close, close_range, dup2,
 * dup3. The kernel makes them; the copies kept of the fds they end are
 * dropped first (fdcache.c). */
#include "syscalls/sys.h"
#include <linux/close_range.h>

enum sys_action sys_close(struct world *w, struct thread *t)
{
    unsigned fd = (unsigned)(int)ARG0(t);
    fdcache_forget(t->proc, fd, fd);
    return SYS_PASS;
}

/* close_range(first, last, flags): CLOSE_RANGE_CLOEXEC closes at the next
 * exec (forgotten now all the same); CLOSE_RANGE_UNSHARE gives the caller a
 * table of its own, which its process's other threads do not share. */
enum sys_action sys_close_range(struct world *w, struct thread *t)
{
    if (ARG2(t) & CLOSE_RANGE_UNSHARE) fdcache_stop(t->proc);
    else fdcache_forget(t->proc, (unsigned)ARG0(t), (unsigned)ARG1(t));
    return SYS_PASS;
}

/* dup2 and dup3 close their target first. */
enum sys_action sys_dup2(struct world *w, struct thread *t)
{
    unsigned fd = (unsigned)(int)ARG1(t);
    fdcache_forget(t->proc, fd, fd);
    return SYS_PASS;
}
