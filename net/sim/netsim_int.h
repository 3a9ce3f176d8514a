/* Internals shared by netsim.c (sockets, addresses) and relay.c (moving
 * bytes). Nothing else includes this. */
#ifndef DSIM_NETSIM_INT_H
#define DSIM_NETSIM_INT_H
#include "net/sim/netsim.h"
#include "world/world.h"
#include "net/model/net.h"
#include "net/model/queue.h"
#include <sys/epoll.h>
#include <sys/un.h>

struct nev;

struct netsim {
    uint32_t *addrs;            /* each machine's IPv4 address, host order */
    uint16_t *next_port;        /* each machine's next ephemeral port */
    struct simsock **socks;
    size_t nsocks, capsocks;
    struct net_model *model;
    struct evq *queue;          /* packets in flight */
    struct prng pick;           /* choices that are not the model's (SO_REUSEPORT) */
    char dir[272];              /* run_dir/net: where kernel sockets are bound */
    int dirfd;                  /* dir, held open: addresses name it through */
    char addr_dir[32];          /* /proc/self/fd/DIRFD, as short for any TMPDIR */
    int epfd;                   /* the relay's ends, for "what was written" */
    int relay_fd;               /* the listener tracee connections attach to */
    int udp_fd;                 /* datagrams are delivered from this socket */
    struct conn **conns;
    size_t nconns, capconns;
    int next_conn;
    uint64_t next_change;       /* when a partition next starts or heals */
    bool flush_pending;         /* some connection holds bytes a reader must take */
    uint64_t quiet_epoch;       /* io_epoch of the last epoll_wait (run.c): none since, none needed */
    struct nev *taken;          /* a write this step that the relay took without the kernel (relay.c) */
    /* Ports held by TIME_WAIT: the side that closed first keeps its
     * address for 60s, and a bind without SO_REUSEADDR fails meanwhile. */
    struct timewait { int machine; struct saddr a; uint64_t until; } *tw;
    size_t ntw, captw;
};

/* One end of a connection as the relay sees it: the supervisor's socket
 * facing one side's tracee socket. */
struct conn_end {
    struct conn *c;
    int side;
};

struct chunk {
    struct chunk *next;
    size_t len, off;
    bool fin;
    char data[];
};

enum conn_state { C_SYN_SENT, C_ESTABLISHED, C_REFUSED, C_CLOSED };

/* The relay's writes into one end, for a warm start's copy of its socket
 * (netsim_unread_writes): the sizes of the last SENT_KEPT (each write the
 * kernel's own buffers, which the tracee's socket may still hold unread:
 * a copy gets them in the same writes, so its room is the template's),
 * and while the end waits in a listener's backlog, their bytes too (no
 * one can read them there), up to SENT_BYTES. */
#define SENT_KEPT NETSIM_WRITES_KEPT
#define SENT_BYTES (256 * 1024)
struct sent {
    uint32_t size[SENT_KEPT];
    uint64_t count;             /* writes made; the ring holds the last SENT_KEPT */
    char *bytes;                /* while unaccepted */
    size_t nbytes;
    bool bytes_lost;            /* more than SENT_BYTES, or written before it was kept */
    bool shut;                  /* the FIN written after them (the end shut down for writing) */
};

struct conn {
    int id;
    int m[2];                   /* machine of side 0 (connected) and side 1 (accepted) */
    int inc[2];                 /* their incarnations */
    struct saddr ep[2];         /* each side's address */
    int fd[2];                  /* supervisor ends; -1 when closed */
    struct conn_end end[2];
    bool polling[2];            /* fd[i] is in the relay's epoll set */
    uint32_t watching[2];       /* for these events */
    /* MSG_MORE, TCP_CORK: side d's last bytes wait for more (full segments
     * go), until a send without them, 200 ms, or its close; hold_gen voids
     * the ceiling timer of an earlier hold. */
    enum netsim_hold held[2];
    unsigned hold_gen[2];
    enum conn_state state;
    int err;                    /* why a connect failed */
    size_t junk;                /* bytes stuffed into side 0's buffer during the handshake */
    uint64_t last_arrival[2];   /* per direction d (side d -> side 1-d) */
    size_t inflight[2];         /* bytes read from side d not yet written to side 1-d */
    struct chunk *out[2], *out_tail[2];     /* arrived for side i, not yet written */
    struct sent *sent[2];       /* written into side i's end (made at its first write) */
    bool eof[2];                /* side i shut its write side (or closed) */
    bool gone[2];               /* side i's socket is closed, reset or crashed */
    struct simsock *sock[2];    /* the tracee sockets, once known */
    struct simsock *listener;
    int closer;                 /* side that sent the first FIN, or -1 */
    /* Keepalive, per side: when it last heard from the other side, the
     * generation of its armed timer (a newer arming voids older timers),
     * and the probes that went unanswered. */
    uint64_t heard[2];
    unsigned ka_gen[2];
    int ka_probes[2];
    int refs;                   /* events in flight that point here */
};

/* netsim.c: a sockaddr_un for DIR/LEAF; -1 if the path is too long. */
int netsim_unix_addr(struct sockaddr_un *a, const char *dir, const char *leaf);
/* netsim.c: a UDP socket's receive buffer, in bytes. */
size_t netsim_rcvbuf(const struct simsock *s);
/* netsim.c, below the relay: */
int netsim_open(struct world *w);
/* netsim_free's second half, after the relay's (relay.c). */
void netsim_free_sockets(struct world *w);
bool netsim_addr_accepts(const struct simsock *s, const struct saddr *to);
struct simsock *netsim_find(struct world *w, int m, int type, const struct saddr *to, bool listening);
#endif
