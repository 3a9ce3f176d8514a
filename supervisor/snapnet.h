/* The simulated network at a warm start's point (docs/design.md §6
 * "Simulated sockets at the point"): servers listening, UDP sockets bound,
 * sockets made and not yet used, with nothing in flight and no connection
 * open. Each is an AF_UNIX socket of the kernel's (net/sim/netsim.h) that
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
 * relay end, whose shutdown f keeps.
 * Then, every process read (fs[0..nf)): each open connection end is one of
 * theirs. 0, or -1 with why. */
int snap_net_check(struct world *w, int netns, struct snap_fds *f, char *why, size_t len);
int snap_net_copied(struct world *w, const struct snap_fds *const *fs, int nf, char *why, size_t len);
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
