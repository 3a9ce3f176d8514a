/* Copies of a process's socket fds, kept from one call to the next, so a
 * network call does not copy the fd (pidfd_getfd), stat the copy and close
 * it again at every step to learn which simulated socket it is.
 *
 * A kept copy is exactly the tracee's fd only while that fd number names the
 * same open file description. A number changes what it names only when it
 * is closed or replaced: close, close_range, dup2 and dup3 onto it, an exec
 * (close-on-exec), the process's death, and a seccomp listener's ADDFD into
 * it; the copy is dropped at each of these, before the kernel acts, so the
 * tracee's close is still the last one (its peer sees the end, an epoll
 * forgets it, SO_LINGER acts then). A number can be given out again only
 * after it was closed, so new fds (open, socket, accept, dup, F_DUPFD,
 * SCM_RIGHTS) need nothing. The table is per process: a process whose fd
 * table another process shares (clone with CLONE_FILES), or with a thread
 * of its own table (CLONE_THREAD without CLONE_FILES, close_range's
 * CLOSE_RANGE_UNSHARE), keeps none, ever. Only sockets are kept: their
 * stat (type, inode) never changes.
 *
 * The same rules keep a second, smaller fact without any copy: which fd
 * numbers name a plain file or directory (not one of dsim's /proc texts),
 * whose reads the kernel makes at once. A read of one passes without a
 * copy, a stat and a close (CPython reads each module it imports twice). */
#include "syscalls/sys.h"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEPT_MAX 64                 /* copies one process keeps */
#define KEPT_ALL_MAX 256            /* and all together: dsim's own fds are limited */

static int kept_all;

/* fd is -1 once the tracee's fd closed while threads still held the copy
 * across a block (fd_hold): it closes when the last lets go. */
struct kept_fd {
    int fd, copy;
    int holds;
    struct stat st;
};

static struct kept_fd *find(const struct process *p, int fd)
{
    for (int i = 0; i < p->nkept; i++)
        if (p->kept[i].fd == fd && fd >= 0) return &p->kept[i];
    return NULL;
}

static struct kept_fd *by_copy(const struct process *p, int copy)
{
    for (int i = 0; i < p->nkept; i++)
        if (p->kept[i].copy == copy) return &p->kept[i];
    return NULL;
}

static void drop(struct process *p, struct kept_fd *k)
{
    close(k->copy);
    *k = p->kept[--p->nkept];
    kept_all--;
}

int fd_lend(struct world *w, struct thread *t, int fd, struct stat *st)
{
    struct process *p = t->proc;
    struct kept_fd *k = p->fds_unkept ? NULL : find(p, fd);
    if (k) {
        *st = k->st;
        return k->copy;
    }
    int copy = fd_probe(w, t, fd, st);
    if (copy < 0 || p->fds_unkept || !S_ISSOCK(st->st_mode) || p->nkept >= KEPT_MAX || kept_all >= KEPT_ALL_MAX)
        return copy;
    if (!p->kept && !(p->kept = calloc(KEPT_MAX, sizeof *p->kept))) return copy;
    p->kept[p->nkept++] = (struct kept_fd){ .fd = fd, .copy = copy, .st = *st };
    kept_all++;
    return copy;
}

void fd_return(struct thread *t, int copy)
{
    if (copy >= 0 && !by_copy(t->proc, copy)) close(copy);
}

void fd_hold(struct thread *t, int copy, short events)
{
    struct kept_fd *k = copy >= 0 ? by_copy(t->proc, copy) : NULL;
    hold_copy(t, copy, events);
    if (k) k->holds++;
    t->copy_lent = k != NULL;
}

void fd_unhold(struct process *p, int copy)
{
    struct kept_fd *k = by_copy(p, copy);
    if (k && --k->holds == 0 && k->fd < 0) drop(p, k);
}

#define PLAIN_MAX 64                /* plain fds one process has known */

bool fd_plain(const struct process *p, int fd)
{
    for (int i = 0; i < p->nplain; i++)
        if (p->plain[i] == fd) return true;
    return false;
}

void fd_plain_note(struct process *p, int fd)
{
    if (p->fds_unkept || p->nplain >= PLAIN_MAX || fd_plain(p, fd)) return;
    if (!p->plain && !(p->plain = calloc(PLAIN_MAX, sizeof *p->plain))) return;
    p->plain[p->nplain++] = fd;
}

void fdcache_forget(struct process *p, unsigned lo, unsigned hi)
{
    for (int i = 0; i < p->nplain;) {
        if ((unsigned)p->plain[i] >= lo && (unsigned)p->plain[i] <= hi) p->plain[i] = p->plain[--p->nplain];
        else i++;
    }
    for (int i = 0; i < p->nkept;) {
        struct kept_fd *k = &p->kept[i];
        if (k->fd < 0 || (unsigned)k->fd < lo || (unsigned)k->fd > hi) i++;
        else if (k->holds) k->fd = -1, i++;
        else drop(p, k);
    }
}

void fdcache_forget_all(struct process *p)
{
    fdcache_forget(p, 0, ~0u);
    if (!p->nkept) {            /* else held copies remain, until their holders let go */
        free(p->kept);
        p->kept = NULL;
    }
    free(p->plain);
    p->plain = NULL;
}

void fdcache_stop(struct process *p)
{
    fdcache_forget_all(p);
    p->fds_unkept = true;
}
