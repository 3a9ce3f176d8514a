/* Pipes and unix socket pairs between the processes of a machine at a
 * warm start's point (snapshot.c): a pipeline's (`prog | tee log`), a
 * child's output its parent reads, multiprocessing's connections. Each copy shares its template's open files, and these its
 * seed must have its own of, joining the same copies as at the point: the
 * first copy that holds an end makes the pipe (its capacity, its bytes
 * written again) and puts each end it holds at its fds; every other copy
 * takes the ends it holds from that one (pidfd_getfd), so that each end is
 * one open file across the copies, as it was across the processes. A
 * socket pair's end is its socket's inode; the pair must be idle. */
#ifndef DSIM_SNAPPIPES_H
#define DSIM_SNAPPIPES_H
#include "supervisor/inject.h"
#include "supervisor/snapfds.h"
#include <stdbool.h>

struct snap_pipe_fd { int proc, fd, flags; };     /* flags: O_CLOEXEC of the fd */

struct snap_pipe {
    uint64_t ino;                   /* a pipe's, or the lower of a socket pair's two */
    int type;                       /* 0: a pipe; else a unix socket pair's SOCK_ type */
    bool busy;                      /* a socket pair with bytes queued or shut down */
    struct snap_pipe_fd *fds[2];    /* the fds of its read end [0] and write end [1], in each process */
    int nfds[2];
    int nonblock[2];                /* each end's O_NONBLOCK (its open file's) */
    int size, nbytes;
    char bytes[SNAP_PIPE_BYTES];
};

struct snap_pipes {
    struct snap_pipe *v;
    int n;
};

/* The pipes and socket pairs among pids[0..n) (a machine's processes at
 * the point, their host pids) that more than one of them holds, or that
 * one holds an end of more than once: 0, or -1 and why not (an end that is
 * two open files, a pipe with more bytes than a copy writes again, a pair
 * not idle). */
int snap_pipes_read(const pid_t *pids, int n, struct snap_pipes *out, char *why, size_t len);
/* Whether fd of process proc is an end of one of them (its copies' own
 * fds leave it alone). */
bool snap_pipes_holds(const struct snap_pipes *s, int proc, int fd);
/* In each seed, copies[0..n) made (at their point's stop, not yet handed
 * off): the pipes made and put in place. 0 or -errno. */
long snap_pipes_make(const struct snap_pipes *s, struct tracee *copies, const pid_t *vpids, int n);
void snap_pipes_free(struct snap_pipes *s);
/* Whether this host has kcmp (CONFIG_CHECKPOINT_RESTORE), which tells two
 * processes' shared files apart: dsim doctor says it. */
bool snap_kcmp_works(void);
#endif
