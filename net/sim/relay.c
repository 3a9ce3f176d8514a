/* The relay: moves TCP bytes and UDP datagrams between machines at the
 * times the network model draws (see netsim.h for the design). */
#include "net/sim/netsim_int.h"
#include "base/xalloc.h"
#include "base/values.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#define WINDOW (256 * 1024)     /* bytes one direction may have in flight */
#define CHUNK (64 * 1024)       /* bytes one read of the relay takes */
#define SYN_RTO 1000000000ULL   /* Linux's first SYN retransmission: 1s */
/* tcp_syn_retries = 6: SYNs at 0, 1, 3, 7, 15, 31 and 63 s, then ETIMEDOUT
 * at 127 s (the last wait is 64 s, so the doubled RTO reaches 128 s). */
#define SYN_GIVE_UP (128 * SYN_RTO)
#define MSS 1448                /* a full segment: Ethernet's MTU less IP and TCP headers, timestamps */
#define CORK_CEILING 200000000ULL   /* Linux sends corked bytes after 200 ms anyway */
#define DGRAM_OVERHEAD 768      /* what a small datagram costs a UDP receive buffer (skb truesize) */

enum ev_kind { EV_SYN, EV_SYNACK, EV_RST, EV_DATA, EV_FIN, EV_DGRAM, EV_KEEPALIVE, EV_PUSH };

/* A packet in flight. TCP events travel in direction dir: from side dir of
 * c to side 1 - dir. */
struct nev {
    enum ev_kind kind;
    struct conn *c;
    int dir;
    int err;                    /* EV_RST: what the receiver sees */
    uint64_t sent;              /* when it first left (for timeouts) */
    uint64_t rto;               /* its current retransmission timeout */
    int from, to;               /* EV_DGRAM: machines */
    int conn_id;                /* EV_KEEPALIVE, EV_PUSH: its connection, by id (a timer holds no reference) */
    unsigned gen;               /* EV_KEEPALIVE, EV_PUSH: the arming it belongs to */
    struct saddr src, dst;
    struct simsock *sender;     /* EV_DGRAM: sockets live as long as the run */
    size_t len;
    char data[];
};

static const char *const kind_names[] = { "syn", "syn-ack", "reset", "data", "fin", "udp", "keepalive", "push" };

/* Its trace event, as a record (net/model/netrec.h): the text is made only
 * when a trace file or report reads it. */
static void ev_trace(struct world *w, const struct nev *e, int machine, const char *what)
{
    bool dgram = e->kind == EV_DGRAM;
    struct netrec_event r = {
        .kind = kind_names[e->kind],
        .from = w->machines[dgram ? e->from : e->c->m[e->dir]].name,
        .to = w->machines[dgram ? e->to : e->c->m[1 - e->dir]].name,
        .src = dgram ? e->src : e->c->ep[e->dir],
        .dst = dgram ? e->dst : e->c->ep[1 - e->dir],
        .what = what,
        .len = e->len,
    };
    unsigned char rec[NETREC_MAX];
    size_t len = netrec_encode(&r, rec);
    if (!len) abort();      /* machine names are short (config.c) */
    trace_record(w->trace, w->now, w->machines[machine].name, 0, rec, len, netrec_format);
}

static struct nev *ev_new(enum ev_kind kind, struct conn *c, int dir, size_t len)
{
    struct nev *e = calloc(1, sizeof *e + len);
    if (!e) abort();
    e->kind = kind;
    e->c = c;
    e->dir = dir;
    e->len = len;
    if (c) c->refs++;
    return e;
}

static void ev_free(void *p)
{
    struct nev *e = p;
    if (e->c) e->c->refs--;
    free(e);
}

/* ---- connections ---- */

#define NOT_QUIET 0             /* quiet_epoch when the relay must look (io_epoch starts at 1) */

/* Side's end in the relay's epoll set (on) or not. A held end that has
 * shown what it holds is watched only for its close (EPOLLRDHUP), which
 * sends everything; any other for its bytes. */
static void poll_end(struct world *w, struct conn *c, int side, bool on)
{
    uint32_t want = c->held[side] && c->watching[side] == EPOLLRDHUP ? EPOLLRDHUP : EPOLLIN | EPOLLRDHUP;
    if (c->fd[side] < 0 || (c->polling[side] == on && (!on || c->watching[side] == want))) return;
    struct epoll_event ev = { .events = want, .data.ptr = &c->end[side] };
    epoll_ctl(w->net->epfd, !on ? EPOLL_CTL_DEL : c->polling[side] ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd[side], &ev);
    c->polling[side] = on;
    c->watching[side] = on ? want : 0;
    if (on) w->net->quiet_epoch = NOT_QUIET;    /* an end watched anew may hold bytes */
}

/* Watches a polled end for its close only (held) or for its bytes again. */
static void watch_end(struct world *w, struct conn *c, int side, uint32_t events)
{
    if (c->fd[side] < 0 || !c->polling[side] || c->watching[side] == events) return;
    struct epoll_event ev = { .events = events, .data.ptr = &c->end[side] };
    epoll_ctl(w->net->epfd, EPOLL_CTL_MOD, c->fd[side], &ev);
    c->watching[side] = events;
    if (events & EPOLLIN) w->net->quiet_epoch = NOT_QUIET;
}

static void close_end(struct world *w, struct conn *c, int side)
{
    poll_end(w, c, side, false);
    if (c->fd[side] >= 0) close(c->fd[side]);
    c->fd[side] = -1;
    for (struct chunk *k = c->out[side], *next; k; k = next) {
        next = k->next;
        free(k);
    }
    c->out[side] = c->out_tail[side] = NULL;
}

static struct conn *conn_new(struct world *w)
{
    struct netsim *n = w->net;
    struct conn *c = calloc(1, sizeof *c);
    if (!c) abort();
    c->id = n->next_conn++;
    c->fd[0] = c->fd[1] = -1;
    c->closer = -1;
    for (int i = 0; i < 2; i++) c->end[i] = (struct conn_end){ c, i };
    GROW(n->conns, n->nconns, n->capconns);
    n->conns[n->nconns++] = c;
    return c;
}

#define TIME_WAIT_NS 60000000000ULL

static void conn_free(struct world *w, struct conn *c)
{
    struct netsim *n = w->net;
    if (c->closer >= 0 && c->state == C_ESTABLISHED && !c->gone[0] && !c->gone[1]) {
        GROW(n->tw, n->ntw, n->captw);
        n->tw[n->ntw++] = (struct timewait){ c->m[c->closer], c->ep[c->closer], w->now + TIME_WAIT_NS };
    }
    close_end(w, c, 0);
    close_end(w, c, 1);
    for (int i = 0; i < 2; i++) {
        if (c->sock[i] && c->sock[i]->conn == c) c->sock[i]->conn = NULL;
        if (c->sent[i]) free(c->sent[i]->bytes);
        free(c->sent[i]);
    }
    if (c->listener)
        for (size_t i = 0; i < c->listener->npending; i++)
            if (c->listener->pending[i] == c) c->listener->pending[i] = NULL;
    free(c);
}

/* Frees connections that are over: both ends closed, nothing in flight. */
static void conns_collect(struct world *w)
{
    struct netsim *n = w->net;
    size_t k = 0;
    for (size_t i = 0; i < n->nconns; i++) {
        struct conn *c = n->conns[i];
        if (c->fd[0] < 0 && c->fd[1] < 0 && c->refs == 0 && c->state != C_SYN_SENT) conn_free(w, c);
        else n->conns[k++] = c;
    }
    n->nconns = k;
}

/* Ends side i's part: closed once it has shut its write side and been
 * sent everything the other side wrote, FIN included. */
static void end_check(struct world *w, struct conn *c)
{
    for (int i = 0; i < 2; i++)
        if (c->fd[i] >= 0 && c->eof[i] && c->eof[1 - i] && !c->out[i] && c->inflight[1 - i] == 0 && !c->refs)
            close_end(w, c, i);
}

static void schedule(struct world *w, struct nev *e, uint64_t at)
{
    if (!e->sent) e->sent = w->now;
    evq_push(w->net->queue, at, e);
}

/* A segment's arrival time; a segment that would never arrive (a stall past
 * tcp_timeout) times the sender out instead. */
static void send_segment(struct world *w, struct nev *e)
{
    struct conn *c = e->c;
    int d = e->dir;
    bool lost = false;
    uint64_t at = net_tcp_arrival(w->net->model, c->m[d], c->m[1 - d], w->now, c->last_arrival[d], &lost);
    if (at == UINT64_MAX) {
        ev_trace(w, e, c->m[d], "stalled");
        struct nev *r = ev_new(EV_RST, c, 1 - d, 0);
        r->err = ETIMEDOUT;
        schedule(w, r, w->now + w->conf->net.tcp_timeout_ns);
        ev_free(e);
        return;
    }
    if (lost) ev_trace(w, e, c->m[d], "retransmitted");
    c->last_arrival[d] = at;
    schedule(w, e, at);
}

static void send_reset(struct world *w, struct conn *c, int to_side, int err)
{
    struct nev *r = ev_new(EV_RST, c, 1 - to_side, 0);
    r->err = err;
    bool lost;
    uint64_t at = net_tcp_arrival(w->net->model, c->m[1 - to_side], c->m[to_side], w->now, 0, &lost);
    schedule(w, r, at == UINT64_MAX ? w->now + w->conf->net.tcp_timeout_ns : at);
}

/* Notes a write of n bytes into side r's end, or its FIN if data is NULL
 * (struct sent). */
static void note_sent(struct conn *c, int r, const char *data, size_t n)
{
    struct sent *t = c->sent[r];
    if (!t) {
        if (!(t = c->sent[r] = calloc(1, sizeof *t))) abort();
        t->bytes_lost = c->sock[r] != NULL;     /* kept only from an unaccepted end's first write */
    }
    if (!data) {
        t->shut = true;
        return;
    }
    t->size[t->count++ % SENT_KEPT] = (uint32_t)n;
    if (c->sock[r] || t->bytes_lost) return;
    if (t->nbytes + n > SENT_BYTES) {
        t->bytes_lost = true;
        free(t->bytes);
        t->bytes = NULL;
        return;
    }
    if (!(t->bytes = realloc(t->bytes, t->nbytes + n))) abort();
    memcpy(t->bytes + t->nbytes, data, n);
    t->nbytes += n;
}

/* Writes what arrived for side r into its end, as far as its reader has
 * room; the rest waits for the next step. */
static void flush(struct world *w, struct conn *c, int r)
{
    while (c->out[r] && c->fd[r] >= 0) {
        struct chunk *k = c->out[r];
        if (k->fin) {
            shutdown(c->fd[r], SHUT_WR);
            note_sent(c, r, NULL, 0);
        } else {
            ssize_t n = send(c->fd[r], k->data + k->off, k->len - k->off, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                w->net->flush_pending = true;
                return;
            }
            if (n < 0) {
                /* Its socket is closed: the peer's data meets a reset. */
                c->inflight[1 - r] = 0;
                close_end(w, c, r);
                c->gone[r] = true;
                if (!c->gone[1 - r]) send_reset(w, c, 1 - r, ECONNRESET);
                return;
            }
            note_sent(c, r, k->data + k->off, (size_t)n);
            k->off += (size_t)n;
            c->inflight[1 - r] -= (size_t)n;
            if (k->off < k->len) continue;
        }
        c->out[r] = k->next;
        if (!c->out[r]) c->out_tail[r] = NULL;
        free(k);
    }
    if (c->inflight[1 - r] < WINDOW && !c->eof[1 - r] && !c->gone[1 - r] && c->state == C_ESTABLISHED)
        poll_end(w, c, 1 - r, true);
    end_check(w, c);
}

static void enqueue(struct conn *c, int r, const void *data, size_t len, bool fin)
{
    struct chunk *k = malloc(sizeof *k + len);
    if (!k) abort();
    *k = (struct chunk){ .len = len, .fin = fin };
    memcpy(k->data, data, len);
    if (c->out_tail[r]) c->out_tail[r]->next = k;
    else c->out[r] = k;
    c->out_tail[r] = k;
}

static void unhold(struct world *w, struct conn *c, int d);

/* Reads what side d wrote, up to the window, into segments. A held side
 * gives only its full segments; the rest waits (MSG_MORE, TCP_CORK).
 * polled: the epoll events that brought it here, or 0 if none: with no
 * hangup among them, a short read has taken all there is (no tracee runs
 * meanwhile), and the read that would say EAGAIN is not made. */
static void read_side_polled(struct world *w, struct conn *c, int d, uint32_t polled)
{
    static char buf[CHUNK];
    size_t budget = SIZE_MAX;
    if (c->held[d]) {
        int avail = 0;
        if (ioctl(c->fd[d], FIONREAD, &avail) != 0) avail = 0;
        if (c->held[d] == HOLD_MORE && avail >= MSS) unhold(w, c, d);
        else {
            budget = (size_t)avail - (size_t)avail % MSS;
            watch_end(w, c, d, EPOLLRDHUP);
        }
    }
    while (c->fd[d] >= 0 && c->inflight[d] < WINDOW && budget > 0) {
        size_t want = WINDOW - c->inflight[d] < CHUNK ? WINDOW - c->inflight[d] : CHUNK;
        if (want > budget) want = budget;
        ssize_t n = recv(c->fd[d], buf, want, MSG_DONTWAIT);
        if (n > 0) {
            struct nev *e = ev_new(EV_DATA, c, d, (size_t)n);
            memcpy(e->data, buf, (size_t)n);
            c->inflight[d] += (size_t)n;
            budget -= (size_t)n;
            send_segment(w, e);
            if (polled && !(polled & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) && (size_t)n < want) return;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        poll_end(w, c, d, false);
        if (n == 0 && c->sock[d] && c->sock[d]->abort_close) n = -1;     /* SO_LINGER {1, 0} */
        if (n == 0) {
            if (!c->eof[1 - d]) c->closer = d;
            c->eof[d] = true;
            send_segment(w, ev_new(EV_FIN, c, d, 0));
        } else {
            /* Closed with unread data: Linux sends a reset. */
            c->gone[d] = c->eof[d] = true;
            close_end(w, c, d);
            if (!c->gone[1 - d]) send_reset(w, c, 1 - d, ECONNRESET);
        }
        return;
    }
    if (c->inflight[d] >= WINDOW) poll_end(w, c, d, false);
}

static void read_side(struct world *w, struct conn *c, int d) { read_side_polled(w, c, d, 0); }

/* ---- MSG_MORE and TCP_CORK ---- */

static void unhold(struct world *w, struct conn *c, int d)
{
    if (!c->held[d]) return;
    c->held[d] = HOLD_NONE;
    c->hold_gen[d]++;
    watch_end(w, c, d, EPOLLIN | EPOLLRDHUP);
}

void netsim_hold(struct world *w, struct simsock *s, enum netsim_hold how)
{
    struct conn *c = s->conn;
    if (!c || c->sock[s->side] != s || c->fd[s->side] < 0) return;
    int d = s->side;
    if (how == HOLD_NONE) {
        unhold(w, c, d);
        return;
    }
    watch_end(w, c, d, EPOLLIN | EPOLLRDHUP);      /* the new bytes may fill a segment */
    bool armed = c->held[d] != HOLD_NONE;
    c->held[d] = how;
    if (armed) return;
    struct nev *e = ev_new(EV_PUSH, NULL, d, 0);    /* no reference: found again by id */
    e->conn_id = c->id;
    e->gen = ++c->hold_gen[d];
    evq_push(w->net->queue, w->now + CORK_CEILING, e);
}

static struct conn *conn_by_id(struct world *w, int id)
{
    for (size_t i = 0; i < w->net->nconns; i++)
        if (w->net->conns[i]->id == id) return w->net->conns[i];
    return NULL;
}

/* The ceiling of a hold: what waits goes. */
static void push_due(struct world *w, struct nev *e)
{
    struct conn *c = conn_by_id(w, e->conn_id);
    int d = e->dir;
    unsigned gen = e->gen;
    free(e);
    if (!c || gen != c->hold_gen[d] || !c->held[d]) return;
    unhold(w, c, d);
    read_side(w, c, d);
}

void netsim_quiet_through(struct world *w, uint64_t before)
{
    struct netsim *n = w->net;
    if (n && n->quiet_epoch == before) n->quiet_epoch = w->io_epoch;
}

/* What read_side_polled does with bytes it reads from a watched end that
 * held nothing before them, with no hangup: one segment (at most CHUNK,
 * within the window). */
static void segment_read(struct world *w, struct nev *e)
{
    struct conn *c = e->c;
    int d = e->dir;
    c->inflight[d] += e->len;
    send_segment(w, e);
    if (c->inflight[d] >= WINDOW) poll_end(w, c, d, false);
}

/* The end is empty: the relay found nothing to read at the step's start
 * (quiet_epoch: the epoch before the step's own move) and watches it for
 * its bytes, nothing flushes, and the bytes fit one read. The segment is
 * made after the step (netsim_poll), where the read would have been, so
 * that draws and trace lines keep their order. The kernel would have taken
 * them all: an empty unix stream socket takes 64 KiB at Linux's default
 * send buffer (a host with a smaller net.core.wmem_default took less, and
 * now takes as the default host does). Unlike the read, it leaves no
 * skb to free, so the writer's socket sees no write-space wakeup: nor does
 * a TCP socket whose send buffer never filled. */
bool netsim_take_write(struct world *w, struct simsock *s, const void *buf, size_t len)
{
    struct netsim *n = w->net;
    struct conn *c = s->conn;
    if (!n || w->tcp_writes_kernel || n->taken || n->flush_pending || n->quiet_epoch + 1 != w->io_epoch ||
        s->type != SOCK_STREAM || !c || len == 0 || len > CHUNK)
        return false;
    int d = s->side;
    if (c->sock[d] != s || c->state != C_ESTABLISHED || c->junk || c->fd[d] < 0 || c->eof[d] || c->held[d] ||
        !c->polling[d] || c->watching[d] != (EPOLLIN | EPOLLRDHUP) || c->inflight[d] + len > WINDOW)
        return false;
    struct nev *e = ev_new(EV_DATA, c, d, len);
    memcpy(e->data, buf, len);
    n->taken = e;
    n->quiet_epoch = w->io_epoch;       /* the step wrote nothing to the kernel */
    return true;
}

long netsim_outq(const struct simsock *s, bool unsent_only)
{
    if (s->type != SOCK_STREAM) return 0;
    if (s->listening) return -EINVAL;
    const struct conn *c = s->conn;
    if (!c || c->sock[s->side] != s) return 0;
    int d = s->side, queued = 0;
    if (c->fd[d] < 0 || ioctl(c->fd[d], FIONREAD, &queued) != 0) queued = 0;
    return queued + (unsent_only ? 0 : (long)c->inflight[d]);
}

void netsim_poll(struct world *w)
{
    struct netsim *n = w->net;
    if (!n || n->epfd < 0) return;
    if (n->taken) {
        segment_read(w, n->taken);
        n->taken = NULL;
    }
    /* Only a tracee (a step that is not calm, a death) or the network
     * itself makes a relay end readable: after an empty poll, nothing to
     * look for while io_epoch stands. */
    if (!n->flush_pending && n->quiet_epoch == w->io_epoch) return;
    if (n->flush_pending) {
        w->io_epoch++;
        n->flush_pending = false;
        for (size_t i = 0; i < n->nconns; i++)
            for (int r = 0; r < 2; r++)
                if (n->conns[i]->out[r]) flush(w, n->conns[i], r);
    }
    struct epoll_event evs[64];
    int k;
    while ((k = epoll_wait(n->epfd, evs, 64, 0)) < 0 && errno == EINTR) {}
    if (k > 0) w->io_epoch++;         /* and look again at the next step */
    else n->quiet_epoch = w->io_epoch;
    /* Deterministic order: the kernel's ready list order depends on timing. */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0; j--) {
            struct conn_end *a = evs[j - 1].data.ptr, *b = evs[j].data.ptr;
            if (a->c->id * 2 + a->side < b->c->id * 2 + b->side) break;
            struct epoll_event t = evs[j];
            evs[j] = evs[j - 1];
            evs[j - 1] = t;
        }
    for (int i = 0; i < k; i++) {
        struct conn_end *e = evs[i].data.ptr;
        if (evs[i].events & (EPOLLRDHUP | EPOLLHUP)) unhold(w, e->c, e->side);    /* a close sends all */
        read_side_polled(w, e->c, e->side, evs[i].events);
    }
}

/* ---- arrivals ---- */

static bool machine_up(struct world *w, int m, int incarnation)
{
    struct machine *mm = &w->machines[m];
    return mm->started && !mm->exited && mm->incarnation == incarnation;
}

/* A segment for a crashed side: silence while it is down (the sender keeps
 * retransmitting, then times out); a reset once it is back without the
 * connection. True if the event was handled so. */
static bool to_crashed(struct world *w, struct nev *e)
{
    struct conn *c = e->c;
    int r = 1 - e->dir;
    if (machine_up(w, c->m[r], c->inc[r])) return false;
    if (e->kind == EV_RST) { ev_free(e); return true; }
    struct machine *m = &w->machines[c->m[r]];
    if (m->started && !m->exited) {
        ev_trace(w, e, c->m[r], "to a rebooted machine: reset");
        /* One reset for the connection (the first segment's): the
         * sender's side is gone when it arrives, which then reports it
         * (ECONNRESET to its next read or write), as Linux's does. */
        if (!c->gone[r] && !c->gone[e->dir]) send_reset(w, c, e->dir, ECONNRESET);
        c->gone[r] = true;
        ev_free(e);
        return true;
    }
    if (!e->rto) e->rto = w->conf->net.rto_ns;
    if (w->now + e->rto - e->sent > w->conf->net.tcp_timeout_ns) {
        ev_trace(w, e, c->m[e->dir], "timed out");
        if (!c->gone[e->dir]) {
            struct nev *x = ev_new(EV_RST, c, r, 0);
            x->err = ETIMEDOUT;
            schedule(w, x, w->now);
        }
        ev_free(e);
        return true;
    }
    evq_push(w->net->queue, w->now + e->rto, e);
    e->rto *= 2;
    return true;
}

static void arrive_syn(struct world *w, struct nev *e)
{
    struct conn *c = e->c;
    if (c->state != C_SYN_SENT || c->gone[0]) { ev_free(e); return; }
    struct simsock *l = machine_up(w, c->m[1], w->machines[c->m[1]].incarnation)
                            ? netsim_find(w, c->m[1], SOCK_STREAM, &c->ep[1], true) : NULL;
    if (e->rto >= SYN_GIVE_UP || !machine_up(w, c->m[1], w->machines[c->m[1]].incarnation)) {
        /* Nobody answers (a machine down or not started yet): SYNs are
         * retransmitted as Linux does, and a later one may find it up; after
         * the last, the connect fails with ETIMEDOUT, delivered as a reset
         * so that a non-blocking connect sees POLLOUT and SO_ERROR. */
        if (!e->rto) e->rto = SYN_RTO;
        if (e->rto >= SYN_GIVE_UP) {
            ev_trace(w, e, c->m[0], "timed out");
            struct nev *x = ev_new(EV_RST, c, 1, 0);
            x->err = ETIMEDOUT;
            schedule(w, x, w->now);
            ev_free(e);
            return;
        }
        evq_push(w->net->queue, w->now + e->rto, e);
        e->rto *= 2;
        return;
    }
    c->inc[1] = w->machines[c->m[1]].incarnation;
    int fd = l && l->path ? socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0) : -1;
    int err = ECONNREFUSED;
    netsim_pin_sndbuf(fd);
    if (fd >= 0) {
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        snprintf(a.sun_path, sizeof a.sun_path, "%s", l->path);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            err = errno;
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0 && (err == EAGAIN || err == EWOULDBLOCK)) {
        /* A full backlog drops the SYN; the client retransmits it. */
        ev_trace(w, e, c->m[1], "dropped: backlog full");
        if (!e->rto) e->rto = SYN_RTO;
        evq_push(w->net->queue, w->now + e->rto, e);
        e->rto *= 2;
        return;
    }
    if (fd < 0) {
        if (l) l->dead = true;      /* its socket is gone */
        ev_trace(w, e, c->m[1], "refused");
        send_reset(w, c, 0, ECONNREFUSED);
        ev_free(e);
        return;
    }
    ev_trace(w, e, c->m[1], NULL);
    c->fd[1] = fd;
    c->listener = l;
    GROW(l->pending, l->npending, l->cappending);
    l->pending[l->npending++] = c;
    c->ep[1].kind = c->ep[1].kind == ADDR_ANY ? ADDR_V4 : c->ep[1].kind;
    ev_free(e);
    struct nev *ack = ev_new(EV_SYNACK, c, 1, 0);
    send_segment(w, ack);
}

/* The bytes stuffed into the client's send buffer hid its writability
 * while it connected; they go now. */
static void drain_junk(struct conn *c)
{
    static char buf[CHUNK];
    while (c->junk > 0 && c->fd[0] >= 0) {
        ssize_t n = recv(c->fd[0], buf, c->junk < CHUNK ? c->junk : CHUNK, MSG_DONTWAIT);
        if (n <= 0) break;
        c->junk -= (size_t)n;
    }
    c->junk = 0;
}

static void arrive_synack(struct world *w, struct nev *e)
{
    struct conn *c = e->c;
    ev_trace(w, e, c->m[0], NULL);
    ev_free(e);
    if (c->state != C_SYN_SENT) return;
    drain_junk(c);
    c->state = C_ESTABLISHED;
    c->heard[0] = c->heard[1] = w->now;
    poll_end(w, c, 0, true);
    poll_end(w, c, 1, true);
    for (int i = 0; i < 2; i++)
        if (c->sock[i]) netsim_keepalive(w, c->sock[i]);
}

static void arrive_reset(struct world *w, struct nev *e)
{
    struct conn *c = e->c;
    int r = 1 - e->dir;
    ev_trace(w, e, c->m[r], strerror(e->err));
    if (c->state == C_SYN_SENT && r == 0) {
        c->state = C_REFUSED;
        c->err = e->err;
        if (c->sock[0]) c->sock[0]->so_error = e->err;
        drain_junk(c);
    } else if (c->sock[r] && !c->gone[r]) {
        c->sock[r]->so_error = e->err;
    }
    if (r == 1 && c->state == C_SYN_SENT) c->state = C_REFUSED;
    c->gone[r] = c->eof[r] = true;
    close_end(w, c, r);
    ev_free(e);
}

static void arrive_data(struct world *w, struct nev *e)
{
    struct conn *c = e->c;
    int r = 1 - e->dir;
    if (to_crashed(w, e)) return;
    ev_trace(w, e, c->m[r], NULL);
    c->heard[r] = w->now;
    if (c->fd[r] < 0) {             /* reset meanwhile: dropped */
        if (e->kind == EV_DATA) c->inflight[e->dir] -= e->len;
        ev_free(e);
        return;
    }
    enqueue(c, r, e->data, e->len, e->kind == EV_FIN);
    ev_free(e);
    flush(w, c, r);
}

/* ---- UDP ---- */

int netsim_send_dgram(struct world *w, struct simsock *s, const struct saddr *to, const void *buf, size_t len)
{
    if (!to) to = &s->peer;     /* the caller checked that it is connected */
    int dm = netsim_route(w, s->machine, to);
    if (dm < 0) return -ENETUNREACH;
    int err = netsim_autobind(w, s, NULL);
    if (err) return err;
    struct saddr src = s->local;
    if (src.kind == ADDR_ANY) {
        /* The address the packet leaves from, as routing would pick it. */
        if (to->kind == ADDR_V6_LOOP) src.kind = ADDR_V6_LOOP;
        else if (dm == s->machine) src = (struct saddr){ ADDR_V4, to->kind == ADDR_V4 ? to->ip : 0x7f000001, src.port };
        else src = (struct saddr){ ADDR_V4, w->net->addrs[s->machine], src.port };
    }
    struct net_fate f = net_udp_fate(w->net->model, s->machine, dm, w->now);
    struct nev proto = { .kind = EV_DGRAM, .from = s->machine, .to = dm, .src = src, .dst = *to, .len = len,
                         .sender = s };
    if (f.copies == 0) ev_trace(w, &proto, s->machine, f.cut ? "dropped: partition" : "dropped: loss");
    for (int i = 0; i < f.copies; i++) {
        struct nev *e = ev_new(EV_DGRAM, NULL, 0, len);
        *e = proto;
        memcpy(e->data, buf, len);
        if (i == 1) ev_trace(w, e, s->machine, "duplicated");
        schedule(w, e, w->now + f.delay[i]);
    }
    return (int)len;
}

static void arrive_dgram(struct world *w, struct nev *e)
{
    struct simsock *r = machine_up(w, e->to, w->machines[e->to].incarnation)
                            ? netsim_find(w, e->to, SOCK_DGRAM, &e->dst, false) : NULL;
    if (r && r->connected && (r->peer.port != e->src.port || r->peer.ip != e->src.ip)) r = NULL;
    if (!r || !r->path) {
        /* ICMP port unreachable: a connected sender hears ECONNREFUSED. */
        struct simsock *snd = e->sender;
        if (!r && snd && snd->connected && !snd->dead && snd->peer.port == e->dst.port && snd->peer.ip == e->dst.ip &&
            machine_up(w, e->to, w->machines[e->to].incarnation))
            snd->so_error = ECONNREFUSED;
        ev_trace(w, e, e->to, "dropped: no socket");
        ev_free(e);
        return;
    }
    if (r->queued + e->len + DGRAM_OVERHEAD > netsim_rcvbuf(r)) {
        ev_trace(w, e, e->to, "dropped: receive buffer full");
        ev_free(e);
        return;
    }
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof a.sun_path, "%s", r->path);
    if (sendto(w->net->udp_fd, e->data, e->len, MSG_DONTWAIT, (struct sockaddr *)&a, sizeof a) < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK) r->dead = true;
        ev_trace(w, e, e->to, errno == EAGAIN || errno == EWOULDBLOCK ? "dropped: receive queue full" : "dropped: closed");
        ev_free(e);
        return;
    }
    ev_trace(w, e, e->to, NULL);
    GROW(r->srcq, r->nsrc, r->capsrc);
    r->srcq[r->nsrc++] = (struct dgram_src){ e->src, e->len + DGRAM_OVERHEAD };
    r->queued += e->len + DGRAM_OVERHEAD;
    ev_free(e);
}

/* ---- keepalive ---- */

/* Linux's defaults (tcp_keepalive_time, _intvl, _probes) and the socket's
 * own TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT. */
static uint64_t ka_time(const struct simsock *s, int name, uint64_t dflt_s)
{
    int v = netsim_opt_int(s, IPPROTO_TCP, name);
    return (v > 0 ? (uint64_t)v : dflt_s) * 1000000000ULL;
}

static void ka_schedule(struct world *w, struct conn *c, int side, uint64_t at)
{
    struct nev *e = ev_new(EV_KEEPALIVE, NULL, side, 0);     /* no reference: found again by id */
    e->conn_id = c->id;
    e->gen = c->ka_gen[side];
    e->from = c->m[side];
    evq_push(w->net->queue, at, e);
}

void netsim_keepalive(struct world *w, struct simsock *s)
{
    struct conn *c = s->conn;
    if (!c || c->state != C_ESTABLISHED || c->sock[s->side] != s) return;
    int d = s->side;
    c->ka_gen[d]++;                 /* voids the timer armed before */
    c->ka_probes[d] = 0;
    if (!netsim_opt_int(s, SOL_SOCKET, SO_KEEPALIVE) || c->fd[d] < 0) return;
    uint64_t from = c->heard[d] > w->now ? w->now : c->heard[d];
    ka_schedule(w, c, d, from + ka_time(s, TCP_KEEPIDLE, 7200));
}

/* Side d's keepalive timer: if it heard nothing for TCP_KEEPIDLE, a probe
 * goes to the other side. A live peer answers (the idle time starts
 * again), a rebooted machine that no longer knows the connection answers
 * with a reset (ECONNRESET), and a probe that finds no machine or meets a
 * partition is repeated every TCP_KEEPINTVL, TCP_KEEPCNT times, and then
 * the connection times out (ETIMEDOUT). Bytes in flight are not idle: the
 * retransmissions decide then. */
static void keepalive_due(struct world *w, struct nev *e)
{
    struct netsim *n = w->net;
    int d = e->dir, r = 1 - d;
    struct conn *c = conn_by_id(w, e->conn_id);
    unsigned gen = e->gen;
    free(e);
    if (!c || gen != c->ka_gen[d] || c->fd[d] < 0 || c->gone[d] || !c->sock[d] || c->state != C_ESTABLISHED) return;
    struct simsock *s = c->sock[d];
    uint64_t idle = ka_time(s, TCP_KEEPIDLE, 7200), intvl = ka_time(s, TCP_KEEPINTVL, 75);
    if (c->inflight[d] > 0 || (c->ka_probes[d] == 0 && w->now < c->heard[d] + idle)) {
        ka_schedule(w, c, d, (c->inflight[d] > 0 ? w->now : c->heard[d]) + idle);
        return;
    }
    char a[48], b[48];
    const char *what;
    bool lost = false;
    struct machine *pm = &w->machines[c->m[r]];
    bool up = pm->started && !pm->exited;
    int cnt = netsim_opt_int(s, IPPROTO_TCP, TCP_KEEPCNT);
    if (up && net_tcp_arrival(n->model, c->m[d], c->m[r], w->now, 0, &lost) == UINT64_MAX) up = false;
    /* Linux gives up when the probes it sent went unanswered for one more
     * interval, before sending another. */
    if (c->ka_probes[d] >= (cnt > 0 ? cnt : 9)) what = "timed out";
    else if (up && (pm->incarnation != c->inc[r] || c->gone[r])) what = "answered by a reset";
    else if (up) what = "answered";
    else {
        c->ka_probes[d]++;
        what = "unanswered";
    }
    trace_event(w->trace, w->now, w->machines[c->m[d]].name, 0, "net keepalive %s %s > %s %s %s",
                w->machines[c->m[d]].name, saddr_str(&c->ep[d], a, sizeof a), pm->name,
                saddr_str(&c->ep[r], b, sizeof b), what);
    if (!strcmp(what, "answered")) {
        c->heard[d] = w->now;
        c->ka_probes[d] = 0;
        ka_schedule(w, c, d, w->now + idle);
    } else if (!strcmp(what, "unanswered")) {
        ka_schedule(w, c, d, w->now + intvl);
    } else {
        struct nev *x = ev_new(EV_RST, c, r, 0);
        x->err = strcmp(what, "answered by a reset") ? ETIMEDOUT : ECONNRESET;
        schedule(w, x, w->now);
    }
}

/* ---- the loop's hooks ---- */

uint64_t netsim_next(struct world *w)
{
    if (!w->net) return UINT64_MAX;
    uint64_t next = evq_next(w->net->queue);
    return w->net->next_change < next ? w->net->next_change : next;
}

static void side_names(struct world *w, uint64_t side, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < w->nmachines && i < NET_MAX_MACHINES; i++)
        if (side >> i & 1) {
            int k = snprintf(buf + len, size - len, "%s%s", len ? " " : "", w->machines[i].name);
            if (k < 0 || (size_t)k >= size - len) break;
            len += (size_t)k;
        }
}

/* "(random) ", "(fault NAME) " or "". */
static const char *origin(const char *name, bool random, char *buf, size_t size)
{
    if (name) snprintf(buf, size, "(fault %s) ", name);
    else snprintf(buf, size, "%s", random ? "(random) " : "");
    return buf;
}

/* Partitions starting and healing, and loss or duplication bursts starting
 * and ending, are trace events at their times. */
static void trace_partitions(struct world *w)
{
    struct netsim *n = w->net;
    while (n->next_change <= w->now) {
        uint64_t at = n->next_change;
        char a[512], b[512], o[96];
        for (size_t i = 0; i < net_partition_count(n->model); i++) {
            const struct net_partition *p = net_partition_get(n->model, i);
            uint64_t end = p->duration_ns ? p->at_ns + p->duration_ns : UINT64_MAX;
            if (p->at_ns != at && end != at) continue;
            side_names(w, p->side_a, a, sizeof a);
            side_names(w, p->side_b, b, sizeof b);
            trace_event(w->trace, w->now, "-", 0, "net partition %s%s: %s %s %s", origin(p->name, p->random, o, sizeof o),
                        p->at_ns == at ? "starts" : "heals", a, p->one_way ? "->" : "|", b);
        }
        for (size_t i = 0; i < net_burst_count(n->model); i++) {
            const struct net_burst *u = net_burst_get(n->model, i);
            uint64_t end = u->duration_ns ? u->at_ns + u->duration_ns : UINT64_MAX;
            if (u->at_ns != at && end != at) continue;
            side_names(w, u->machines, a, sizeof a);
            percent_str(u->loss_ppm ? u->loss_ppm : u->dup_ppm, b, sizeof b);
            trace_event(w->trace, w->now, "-", 0, "net %s burst %s%s: %s on %s%s", u->dup_ppm ? "duplicate" : "loss",
                        origin(u->name, false, o, sizeof o), u->at_ns == at ? "starts" : "ends", b,
                        u->machines ? "links of " : "every link", a);
        }
        n->next_change = net_next_change(n->model, at);
    }
}

void netsim_fire(struct world *w)
{
    struct netsim *n = w->net;
    if (!n) return;
    trace_partitions(w);
    /* Arrivals write to the relay's ends, which makes the tracees' sockets
     * readable, not the ends: a quiet relay stays quiet unless an end is
     * watched anew (poll_end, watch_end) or read (a hold's ceiling). */
    uint64_t entry = w->io_epoch;
    bool quiet = n->quiet_epoch == entry;
    while (evq_next(n->queue) <= w->now) {
        struct nev *e = evq_pop(n->queue, NULL);
        w->io_epoch++;                  /* an arrival: a receiver's readiness */
        if (e->kind == EV_DATA || e->kind == EV_FIN) {
            /* It writes to, shuts or closes its connection's ends only. */
            w->io_relay_moves++;
            for (int i = 0; i < 2; i++)
                if (e->c->sock[i]) e->c->sock[i]->relay_gen++;
        }
        switch (e->kind) {
        case EV_SYN: arrive_syn(w, e); break;
        case EV_SYNACK: arrive_synack(w, e); break;
        case EV_RST: arrive_reset(w, e); break;
        case EV_DATA:
        case EV_FIN: arrive_data(w, e); break;
        case EV_DGRAM: arrive_dgram(w, e); break;
        case EV_KEEPALIVE: keepalive_due(w, e); break;
        case EV_PUSH: push_due(w, e); quiet = false; break;
        }
    }
    if (quiet && n->quiet_epoch == entry) n->quiet_epoch = w->io_epoch;
    conns_collect(w);
}

int netsim_connect(struct world *w, struct simsock *s, int copy, const struct saddr *to, bool nonblock)
{
    struct netsim *n = w->net;
    int dm = netsim_route(w, s->machine, to);
    if (dm < 0) return -ENETUNREACH;
    int err = netsim_autobind(w, s, to);
    if (err) return err;
    if (netsim_open(w) != 0) return -errno;
    struct sockaddr_un a;
    if (netsim_unix_addr(&a, n->addr_dir, "relay") != 0) return -ENAMETOOLONG;
    if (connect(copy, (struct sockaddr *)&a, sizeof a) != 0) return -errno;
    int fd = accept4(n->relay_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return -errno;
    netsim_pin_sndbuf(fd);
    struct conn *c = conn_new(w);
    c->m[0] = s->machine;
    c->m[1] = dm;
    c->inc[0] = s->incarnation;
    c->ep[0] = s->local;
    if (c->ep[0].kind == ADDR_ANY) c->ep[0] = (struct saddr){ ADDR_V4, n->addrs[s->machine], s->local.port };
    c->ep[1] = *to;
    c->fd[0] = fd;
    c->sock[0] = s;
    s->conn = c;
    s->had_conn = true;
    s->side = 0;
    s->peer = *to;
    if (nonblock) {
        /* Until the SYN-ACK the socket must not poll writable: fill its
         * send buffer from the supervisor's copy of it. */
        static char junk[CHUNK];
        ssize_t k;
        while ((k = send(copy, junk, sizeof junk, MSG_DONTWAIT | MSG_NOSIGNAL)) > 0) c->junk += (size_t)k;
    }
    send_segment(w, ev_new(EV_SYN, c, 0, 0));
    return 0;
}

void netsim_dissolve(struct world *w, struct simsock *s)
{
    struct conn *c = s->conn;
    if (c) {
        int d = s->side;
        c->gone[d] = c->eof[d] = true;
        c->inflight[d] = 0;
        close_end(w, c, d);
        if (!c->gone[1 - d] && c->state == C_ESTABLISHED) send_reset(w, c, 1 - d, ECONNRESET);
        c->sock[d] = NULL;
        end_check(w, c);
    }
    s->conn = NULL;
    s->connected = false;
    s->had_conn = false;
    s->dissolved = true;
}

bool netsim_connect_done(struct simsock *s, int *err)
{
    struct conn *c = s->conn;
    if (!c) { *err = s->so_error ? -s->so_error : 0; return true; }
    if (c->state == C_SYN_SENT) return false;
    *err = c->state == C_REFUSED ? -c->err : 0;
    return true;
}

struct simsock *netsim_accepted(struct world *w, struct simsock *l, ino_t ino)
{
    struct conn *c = NULL;
    while (!c && l->npending > 0) {
        c = l->pending[0];
        memmove(l->pending, l->pending + 1, --l->npending * sizeof *l->pending);
    }
    if (!c) return NULL;
    struct simsock *s = netsim_add(w, ino, l->machine, l->family, SOCK_STREAM);
    s->bound = s->connected = true;
    s->local = c->ep[1];
    s->peer = c->ep[0];
    s->conn = c;
    s->had_conn = true;
    s->side = 1;
    c->sock[1] = s;
    if (c->sent[1]) {           /* its socket's reads now take them: kept no more */
        free(c->sent[1]->bytes);
        c->sent[1]->bytes = NULL;
        c->sent[1]->nbytes = 0;
        c->sent[1]->bytes_lost = true;
    }
    netsim_keepalive(w, s);
    return s;
}

void netsim_machine_down(struct world *w, struct machine *m)
{
    struct netsim *n = w->net;
    if (!n) return;
    for (size_t i = 0; i < n->nsocks; i++)
        if (n->socks[i]->machine == m->index) n->socks[i]->dead = true;
    for (size_t i = 0; i < n->nconns; i++) {
        struct conn *c = n->conns[i];
        for (int s = 0; s < 2; s++) {
            if (c->m[s] != m->index) continue;
            /* A SYN still on its way meets whatever incarnation is up then. */
            if (s == 1 && c->state == C_SYN_SENT && c->fd[1] < 0) continue;
            /* A dead machine sends nothing: not even the FIN or reset its
             * dying sockets would make. */
            close_end(w, c, s);
            c->eof[s] = true;
            if (c->state == C_SYN_SENT && s == 0) c->state = C_CLOSED;
        }
    }
    trace_event(w->trace, w->now, m->name, 0, "net down");
}

static void relay_free(struct world *w)
{
    struct netsim *n = w->net;
    evq_free(n->queue, ev_free);
    for (size_t i = 0; i < n->nconns; i++) {
        n->conns[i]->refs = 0;
        conn_free(w, n->conns[i]);
    }
    free(n->conns);
    free(n->tw);
    if (n->taken) ev_free(n->taken);
}

/* The relay sits on the socket table (netsim.c): its connections go first. */
void netsim_free(struct world *w)
{
    if (!w->net) return;
    relay_free(w);
    netsim_free_sockets(w);
}
