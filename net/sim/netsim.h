/* The simulated network's moving parts: the table of simulated sockets and
 * the relay that carries bytes between machines.
 *
 * A tracee's TCP or UDP socket is really an AF_UNIX socket (socket() is
 * rewritten at its syscall stop), so reads, writes, poll, epoll, dup, fork
 * and close behave as the kernel makes them. Sockets are known by their
 * kernel inode, which dup, fork and fd numbers do not change.
 *
 * TCP: the tracee's socket is connected, in the kernel, to an AF_UNIX
 * socket the supervisor holds. What one side writes lands in the
 * supervisor's end; after each step the relay reads it and schedules its
 * arrival at the other side, at a time the network model draws; at that
 * time it is written into the other side's supervisor end, and the peer
 * tracee reads it. A listener is bound (in the kernel) to a path in the run
 * directory; a connection arriving is the supervisor connecting there, so
 * the tracee's accept runs natively.
 *
 * UDP: sends are made by the supervisor (it reads the datagram from the
 * tracee), and a datagram arriving is sent from the supervisor to the
 * receiver's path. The kernel then queues it, so readiness is real; the
 * source addresses are kept here in order and written at each receive. */
#ifndef DSIM_NETSIM_H
#define DSIM_NETSIM_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "net/model/netrec.h"     /* struct saddr */

struct world;
struct machine;
struct conn;

#define SOCKOPT_MAX 24

/* A socket option as the tracee last set it. */
struct sockopt { int level, name, len; unsigned char val[16]; };

struct simsock {
    ino_t ino;
    int machine;            /* index */
    int incarnation;        /* of the machine when it was made */
    int family;             /* AF_INET or AF_INET6, as the tracee asked */
    int type;               /* SOCK_STREAM or SOCK_DGRAM */
    bool bound, listening, connected, v6only;
    struct saddr local, peer;
    int so_error;           /* pending, for SO_ERROR (and a reset's read) */
    struct sockopt opts[SOCKOPT_MAX];
    int nopts;
    struct conn *conn;      /* TCP: its connection, once it has one */
    int side;               /* 0: it connected; 1: it was accepted */
    char *path;             /* listeners and UDP: where the kernel socket is bound */
    int backlog;
    struct conn **pending;  /* listener: connections not yet accepted, in order */
    size_t npending, cappending;
    struct dgram_src { struct saddr from; size_t size; } *srcq;  /* UDP: each datagram queued in the kernel */
    size_t srchead, nsrc, capsrc;
    size_t queued;          /* UDP: bytes queued, as counted against SO_RCVBUF */
    bool abort_close;       /* SO_LINGER {1, 0}: closing it sends a reset */
    bool dissolved;         /* TCP: connect(AF_UNSPEC) undid its connection */
    bool had_conn;          /* TCP: it had a connection (one that ended reads EOF) */
    int protocol;           /* IPPROTO_TCP, IPPROTO_UDP or IPPROTO_UDPLITE */
    bool dead;              /* its machine crashed */
    /* Its open file description's O_NONBLOCK, as the calls that set it left
     * it (socket and accept4 flags, fcntl F_SETFL, ioctl FIONBIO, all seen
     * at their exit stops; dup and fork share the description, and a
     * socket has no other): a wait needs no F_GETFL. */
    bool nonblock;
    /* Moved by each arrival of bytes or a FIN on its connection (relay.c),
     * which counts it in world io_relay_moves: an arrival elsewhere leaves
     * its readiness as it was. */
    uint64_t relay_gen;
    uint32_t cookie;        /* its place in the table, from 1: SO_COOKIE's number */
};

/* World setup and teardown. 0, or -1 with errno. */
int netsim_init(struct world *w);
void netsim_free(struct world *w);
/* A warm start at now: the network's draws from seed on (supervisor/warm.c). */
int netsim_reseed(struct world *w, uint64_t seed);

/* A warm start's snapshot (supervisor/snapnet.c). Whether the network is
 * still at the point: no connection being made or closed (established
 * ones, or ones waiting in a listener's backlog): NULL, or why not.
 * Whether socket s is one a copy can make anew (no connection, nothing
 * queued, not of a crashed machine): NULL, or why not. In a seed's supervisor, the network's kernel objects (its relay
 * and UDP sockets, its epoll set) made anew: the worker's are the
 * snapshot's. 0, or -1 with errno. */
const char *netsim_still(struct world *w);
const char *netsim_sock_still(const struct simsock *s);
int netsim_reopen(struct world *w);
/* A connected socket's end in the relay (dsim's fd of it), or -1. In a
 * seed's supervisor, end takes that end's place (dup2; it is closed). */
int netsim_relay_end(const struct simsock *s);
int netsim_relay_end_take(struct simsock *s, int end);
/* A listener's connections waiting in its backlog (made, not yet
 * accepted: netsim_still lets a point have them, nothing written to them).
 * In a seed's supervisor, end takes the place of the k-th one's relay end
 * (dup2; it is closed), as netsim_relay_end_take. */
size_t netsim_backlog(const struct simsock *l);
int netsim_backlog_take(struct simsock *l, size_t k, int end);
/* The most writes of the relay into one end it keeps (net/sim/netsim_int.h
 * struct sent). What the relay wrote into the k-th of them, in its writes:
 * their sizes (sizes[0..max)) and bytes (*bytes, *nbytes, the relay's
 * own), and whether its FIN followed (*shut). The count, or -1 if not
 * kept. */
#define NETSIM_WRITES_KEPT 512
int netsim_backlog_writes(const struct simsock *l, size_t k, const char **bytes, size_t *nbytes, uint32_t *sizes,
                          int max, bool *shut);
/* The relay's writes that connected socket s still holds, `unread` bytes
 * in all, the oldest maybe partly read: their sizes, oldest first, into
 * sizes[0..max), and how much of the oldest was read (*skip). The count,
 * or -1 if the relay did not keep them all. */
int netsim_unread_writes(const struct simsock *s, size_t unread, uint32_t *sizes, int max, size_t *skip);
/* The inodes of the sockets whose relay end is open (at most max): every
 * one must be in a process the snapshot copies. Their number. */
size_t netsim_connected(struct world *w, uint64_t *out, size_t max);
/* A listener of dsim's at `name` in the network's directory (its address
 * in *a), to connect a copy's socket to a new relay end: its fd, or -1. */
struct sockaddr_un;
int netsim_listen_at(struct world *w, const char *name, struct sockaddr_un *a);

/* The send buffer of a unix socket under a simulated one (the tracee's,
 * made at its socket() or accept(), and every relay end), pinned at
 * Linux's default (net.core.wmem_default's, NETSIM_SNDBUF): how much a
 * write, or the relay's flush into a reader's socket, puts in before
 * EAGAIN is then the same on every host, whatever its sysctl says.
 * DSIM_TEST_SNDBUF=N pins N instead (a test's look at every socket). */
#define NETSIM_SNDBUF 212992
void netsim_pin_sndbuf(int fd);
/* net.core.wmem_max and rmem_max as a machine has them (Linux's defaults,
 * not the host's sysctls): the most a setsockopt(SO_SNDBUF, SO_RCVBUF)
 * asks for counts. */
#define NETSIM_WMEM_MAX 212992
#define NETSIM_RMEM_MAX 212992
#define NETSIM_RCVBUF 212992        /* net.core.rmem_default */

/* After each step: read what tracees wrote into the relay, schedule it. */
void netsim_poll(struct world *w);
/* A step moved io_epoch from `before`, but its call only reads, waits or
 * sleeps: it cannot have made a relay end readable, so a relay found
 * empty at `before` needs no look after it either. */
void netsim_quiet_through(struct world *w, uint64_t before);
/* A blocking write of len bytes (at most 64 KiB) on TCP socket s, at its
 * step: when the relay's end of s is known empty and watched, the relay
 * takes the bytes from dsim's buffer, as its read after the step would
 * have (the same segments, draws and trace), and no kernel write or read
 * is made. True if it took them all; false: write them to the kernel. */
bool netsim_take_write(struct world *w, struct simsock *s, const void *buf, size_t len);
/* TCP's SIOCOUTQ of socket s: the bytes its process wrote that have not
 * reached the peer's socket (not yet taken by the relay, or in the
 * network: unacknowledged); with unsent_only, SIOCOUTQNSD's, those not yet
 * taken. -EINVAL for a listener (tcp_ioctl), 0 for a UDP socket. */
long netsim_outq(const struct simsock *s, bool unsent_only);
/* Deliver everything due by now; the next due time, or UINT64_MAX. */
void netsim_fire(struct world *w);
uint64_t netsim_next(struct world *w);
/* A crash: its sockets go silent; peers see timeouts, then resets. */
void netsim_machine_down(struct world *w, struct machine *m);

/* The socket table. Active once a simulated socket exists. */
bool netsim_active(const struct world *w);
/* Whether the network's kernel objects were made (a simulated socket was,
 * even if none is left). */
bool netsim_opened(const struct world *w);
struct simsock *netsim_lookup(struct world *w, ino_t ino);
struct simsock *netsim_add(struct world *w, ino_t ino, int machine, int family, int type);

/* Socket options: the one set for (level, name), or NULL; setting keeps
 * up to 16 bytes (NULL if the table is full); an int option, 0 if unset. */
struct sockopt *netsim_opt(struct simsock *s, int level, int name);
struct sockopt *netsim_opt_set(struct simsock *s, int level, int name, const void *val, int len);
int netsim_opt_int(const struct simsock *s, int level, int name);

/* Addresses. The machine an address names, seen from machine `self`
 * (loopback and its own address are itself), or -1: unreachable. */
int netsim_route(struct world *w, int self, const struct saddr *a);
/* Binds s to a: port 0 picks an ephemeral port. 0 or -errno. */
int netsim_bind(struct world *w, struct simsock *s, struct saddr a);
/* Binds an unbound socket to the wildcard (or the address that reaches `to`). */
int netsim_autobind(struct world *w, struct simsock *s, const struct saddr *to);
/* The kernel side of a listener or a UDP socket: bind the tracee's socket
 * (a supervisor copy of it) to its path. 0 or -errno. */
int netsim_bind_path(struct world *w, struct simsock *s, int copy);

/* TCP. Starts a connection from s (the copy is the tracee's socket) to
 * `to`: the kernel connection to the relay is made now, the SYN leaves now.
 * nonblock: hide writability until the handshake ends. 0 or -errno. */
int netsim_connect(struct world *w, struct simsock *s, int copy, const struct saddr *to, bool nonblock);
/* After the tracee's accept returned a socket with inode ino from listener
 * l: the connection it is. NULL if none is pending (should not happen). */
struct simsock *netsim_accepted(struct world *w, struct simsock *l, ino_t ino);
/* SO_KEEPALIVE or its times changed on s (setsockopt), or s's connection
 * was just made: (re)arms the keepalive timer of its side. */
void netsim_keepalive(struct world *w, struct simsock *s);
/* A send on TCP socket s, with MSG_MORE (HOLD_MORE) or TCP_CORK set
 * (HOLD_CORK): its bytes wait for more, but full segments go, and after
 * 200 ms the rest (MSG_MORE: the rest follows full segments, as their ACK
 * would send it). Without (HOLD_NONE) they go now with what waited; so
 * they do when TCP_CORK is cleared or TCP_NODELAY set. */
enum netsim_hold { HOLD_NONE, HOLD_MORE, HOLD_CORK };
void netsim_hold(struct world *w, struct simsock *s, enum netsim_hold how);
/* Whether a connect in progress has finished (state: 0 done, or -errno). */
bool netsim_connect_done(struct simsock *s, int *err);
/* connect(AF_UNSPEC) of a TCP socket: its connection is reset toward the
 * peer and it is unconnected again (reads ENOTCONN, writes EPIPE). */
void netsim_dissolve(struct world *w, struct simsock *s);

/* UDP. Sends one datagram from s to `to` (NULL: its peer, when connected). */
int netsim_send_dgram(struct world *w, struct simsock *s, const struct saddr *to, const void *buf, size_t len);
/* The source of the next queued datagram (consume: pop it). */
bool netsim_dgram_source(struct simsock *s, bool consume, struct saddr *src);

#endif
