/* The simulated network at a warm start's point (docs/design.md §6
 * "Simulated sockets at the point"): servers listening, UDP sockets bound,
 * sockets made and not yet used, connections open or in a listener's
 * backlog, with what they hold to read. Each is an AF_UNIX socket of the kernel's (net/sim/netsim.h) that
 * a copy must not share with its template: the copy makes its own
 * (snapproc.c), dsim binds it at the path the template's had in the run
 * directory and makes it listen with the same backlog (the worker, before
 * the hand-off), and the seed's supervisor keys the simulation's socket
 * by the new inode. */
#ifndef DSIM_SNAPNET_H
#define DSIM_SNAPNET_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct world;
struct snap_fds;

/* The inodes of the simulation's sockets among pid's fds (at most max), each
 * one a copy can make anew, into out: their number, or -1 and why not (one
 * at fd 0-2, one connected, one with something queued). */
int snap_net_inos(const struct world *w, pid_t pid, uint64_t *out, int max, char *why, size_t len);
/* At the snapshot, once a process's fds are read (f; netns: an fd of its
 * network namespace): each connected simulated socket's kernel peer is its
 * relay end, whose shutdown f keeps, and what it and each connection in a
 * listener's backlog hold to read, in the relay's writes (pid's sockets
 * peeked).
 * Then, every process read (fs[0..nf)): each open connection end is one of
 * theirs, or one whose socket was closed (its relay end hung up), noted in
 * *closed. 0, or -1 with why. */
int snap_net_check(struct world *w, pid_t pid, int netns, struct snap_fds *f, char *why, size_t len);
/* A connection end whose socket every process had closed at the point, the
 * relay's end still open (its other side not yet done): per seed a new
 * end whose peer is closed takes its place, holding what the socket wrote
 * that the relay had not yet read. */
struct snap_closed {
    uint64_t ino;           /* the closed socket's (the simulation's key) */
    char *bytes;            /* what its relay end held to read */
    size_t nbytes;
    int seed_end;           /* the worker's fd of the seed's end, until its supervisor takes it (-1) */
};
struct snap_closed_ends { struct snap_closed *v; int n; };
int snap_net_copied(struct world *w, const struct snap_fds *const *fs, int nf, struct snap_closed_ends *closed,
                    char *why, size_t len);
/* Per seed: in the worker, the new ends made (0, or -1 with errno); in the
 * seed's supervisor, each taken in its place (0 or -1); in the worker once
 * it forked that supervisor, its fds closed; at the end, all freed. */
int snap_net_closed_make(struct snap_closed_ends *c);
int snap_net_closed_take(struct world *w, struct snap_closed_ends *c);
void snap_net_closed_done(struct snap_closed_ends *c);
void snap_net_closed_free(struct snap_closed_ends *c);
/* In the worker, once the seed's copy `copy` made its sockets (f): each
 * bound where its template's was, listening as it did, with its timeouts,
 * a connected one joined to a new relay end (kept in f for the seed's
 * supervisor, which the worker closes once it forked it: seed_done);
 * their inodes noted in f. 0, or -1 with why. */
int snap_net_settle(struct world *w, pid_t copy, struct snap_fds *f, char *why, size_t len);
void snap_net_seed_done(struct snap_fds *f);
/* In the seed's supervisor: the simulation's sockets keyed by the copy's
 * inodes (f, as settled), each connection's relay end the seed's. 0, or -1. */
int snap_net_rekey(struct world *w, struct snap_fds *f);
/* After a seed: the sockets' paths it bound go (the directory stays: the
 * snapshot's sockets name it). */
void snap_net_clear(const struct world *w);
#endif
