/* The fds of a process at a warm start's point that its copies make
 * afresh (docs/design.md §6 "Warm start from a snapshot"): unix socket
 * pairs and pipes whose two ends it holds, empty, eventfds, and epoll
 * sets watching them, as an event loop has (asyncio: its epoll fd and its
 * self-pipe, a socket pair; Twisted's and libevent's a pipe or an
 * eventfd) before its first network call. A copy shares its template's
 * open files; these it must not share (a write to the pair, an
 * epoll_ctl, would reach the template and the seeds after), so it makes
 * its own, alike. */
#ifndef DSIM_SNAPFDS_H
#define DSIM_SNAPFDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>

#define SNAP_PIPE_BYTES 256

struct snap_pair {
    int fd[2];              /* the two ends, as the process numbers them (a pipe's read end first) */
    int flags[2];           /* their O_NONBLOCK and O_CLOEXEC */
    int type;               /* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET; 0: a pipe */
    int pipe_size;          /* a pipe's capacity */
    int nbytes;             /* a pipe's bytes at the point (a loop's pending wakeup), written again */
    char bytes[SNAP_PIPE_BYTES];
    uint64_t ino[2];        /* a socket pair's ends' inodes at the point */
    struct timeval timeo[2][2];     /* their receive and send timeouts, as the kernel keeps them */
};

/* An eventfd: made again with its count. A timerfd is one too (dsim's,
 * syscalls/time.c): timerfd is its index in the world's timerfds (-1: a
 * plain eventfd), whose copy of it the seed's supervisor points at the
 * copy's. */
struct snap_eventfd { int fd, flags; uint64_t count; bool semaphore; int timerfd; };

/* A signalfd: made again with its mask (the point has no signal pending). */
struct snap_signalfd { int fd, flags; uint64_t mask; };

/* A unix datagram socket with no peer, idle, unbound or autobound (go-systemd's
 * journal socket, etcd's): made again, and an autobound one bound to the
 * first name free after its template's (snapproc.c bind_after). */
/* A unix datagram socket of the machine's own, no peer, idle; one a
 * process holds at a second fd, or an earlier process holds too, is taken
 * from that one (from_vpid, from_fd: snapshot.c shared_sockets). */
struct snap_dgram {
    int fd, flags;
    bool autobind;
    char name[6];           /* autobound: its abstract name ("\0" and five hex digits) */
    uint64_t ino;
    pid_t from_vpid;
    int from_fd;
    struct timeval timeo[2];
};

/* A simulated TCP or UDP socket (net/sim/netsim.h: an AF_UNIX socket of
 * the kernel's, known to the simulation by its inode), idle: made again of
 * its kernel type. What the kernel's socket was beside that (a listener's
 * or a UDP socket's path in the run directory, a listener's backlog, its
 * receive and send timeouts) is dsim's to give the copy's (snapnet.c). */
#define SNAP_BACKLOG 16
/* What the relay wrote into a connection end that its socket held unread
 * at the point, in the relay's writes (sizes, oldest first; the oldest
 * `skip` bytes already read, its bytes not kept): a copy's end gets the
 * same writes, and the skipped part is read off again, so the copy's
 * socket holds what the template's did in the same kernel buffers (the
 * room left for the relay's next writes is counted by them). */
struct snap_unread {
    char *bytes;
    size_t nbytes, skip;
    uint32_t *sizes;
    int nsizes;
    bool shut;              /* then the relay's FIN (a backlog's connection) */
};

struct snap_simsock {
    int fd, flags, type;
    uint64_t ino;           /* the template's (the simulation's key) */
    bool listening;
    int backlog;            /* a listener's, as the kernel keeps it */
    int waiting;            /* the connections in its backlog, as the kernel counts them */
    struct timeval timeo[2];    /* SO_RCVTIMEO, SO_SNDTIMEO */
    /* An end of an established connection, connected in the kernel to
     * dsim's relay end, nothing queued either way: its shutdown and the
     * relay end's (SEND_SHUTDOWN: 2), made again on the seed's pair. */
    bool connected;
    unsigned shutdown, end_shutdown;
    /* A socket an earlier process of the machine (or an earlier fd of this
     * one) holds too, one open file: the copy takes that one's (pid
     * from_vpid's fd from_fd, pidfd_getfd) instead of making its own, and
     * only the first holder's is settled (snapshot.c shared_sockets). */
    pid_t from_vpid;
    int from_fd;
    size_t unread;                  /* bytes it held to read (udiag_rqueue) */
    struct snap_unread held;        /* and in which writes (snapnet.c) */
    uint64_t seed_ino;      /* the seed's copy's, once made */
    int seed_end;           /* the worker's fd of the seed's relay end, until its supervisor takes it (-1) */
    /* A listener's connections waiting in its backlog at the point: the
     * worker's fds of the seed's relay ends, each connected to the copy's
     * listener in the backlog's order, until the seed's supervisor takes
     * them. */
    int backlog_end[SNAP_BACKLOG];
    int nbacklog;
    struct snap_unread backlog_held[SNAP_BACKLOG];  /* what each of them holds */
};

struct snap_watch { int fd; uint32_t events; uint64_t data; };

struct snap_epoll {
    int fd, flags;          /* flags: O_CLOEXEC */
    struct snap_watch *watches;
    int nwatches;
    /* An edge-triggered or one-shot watch, in a set with no event to give
     * at the point: the copy takes, once, the edges its watches' adding
     * made (only edge-triggered ones can be: anything else ready would
     * have had an event to give). */
    bool drain;
};

/* The most watches of a set with an edge-triggered one (one epoll_wait in
 * the copy's scratch takes every edge). */
#define SNAP_ET_WATCHES 40

struct snap_fds {
    struct snap_pair *pairs;
    int npairs;
    struct snap_epoll *epolls;
    int nepolls;
    struct snap_eventfd *eventfds;
    int neventfds;
    struct snap_signalfd *signalfds;
    int nsignalfds;
    struct snap_dgram *dgrams;
    int ndgrams;
    struct snap_simsock *simsocks;
    int nsimsocks;
};

/* Whether fd of pid is of a kind a copy can make afresh (an epoll set, a
 * socket, a pipe, an eventfd): the fences' first look (warm.c);
 * snap_fds_read decides. */
bool snap_fd_afresh_kind(pid_t pid, int fd);

/* Reads fds[0..n) of pid, every one of which a copy must make afresh: 0,
 * or -1 and why not (an fd of another kind, a socket or pipe not a pair
 * of its own or not empty, a watch of something else, a one-shot or
 * edge-triggered watch). netns: an fd of pid's network namespace, where
 * its unix sockets are listed. sim[0..nsim): the inodes of the
 * simulation's sockets (its TCP and UDP ones), which must be idle. */
int snap_fds_read(pid_t pid, int netns, const int *fds, int n, const uint64_t *sim, int nsim, struct snap_fds *out,
                  char *why, size_t len);
void snap_fds_free(struct snap_fds *f);
void snap_unread_free(struct snap_unread *u);
/* A unix socket of the network namespace netns (an fd of it), by inode:
 * its peer's inode (0 if none), type, and whether it is idle (nothing
 * queued either way, not shut down). 0, or -1 if not listed or the host
 * cannot tell (snap_fds_host_tells). */
struct snap_unix_info { uint64_t peer; int type; bool idle; unsigned shutdown; };
int snap_unix_sock(int netns, uint64_t ino, struct snap_unix_info *out);
/* The flags fdinfo gives fd of pid (its open file's, O_CLOEXEC the fd's), or -1. */
int snap_fdinfo_flags(pid_t pid, int fd);
/* Whether the unix socket at fd of pid has a receive or send timeout (or
 * cannot be read): a copy's socket, made anew, would have none (a pair
 * between processes is refused; a process's own pairs and datagram
 * sockets get theirs, snap_fds_timeouts). */
bool snap_sock_timeouts(pid_t pid, int fd);
/* The timeouts of copy's own socket pairs and datagram sockets (f), made
 * anew without them: as the template's kernel sockets had them, and as
 * dsim kept them for the template's (the world's sock_timeouts, which
 * gets the copy's inodes: the seed's waits read it). 0, or -1. */
struct world;
int snap_fds_timeouts(struct world *w, pid_t copy, const struct snap_fds *f);
/* A pipe's capacity (*size, -1 if unknown) and, if it holds 1 to
 * SNAP_PIPE_BYTES bytes, those bytes (*nbytes of them, left in it), from
 * its read end read_fd of pid. The bytes it holds, or -1. */
int snap_pipe_state(pid_t pid, int read_fd, int *size, char *bytes, int *nbytes);

/* Whether this host tells what those copies need: a unix socket's peer
 * and queued bytes (sock_diag) and an eventfd's mode (fdinfo, Linux 6.3).
 * dsim doctor says it; a host that does not refuses such fds (cold). */
bool snap_fds_host_tells(void);
#endif
