/* The simulated network: socket table, addresses and ports (see netsim.h).
 * The relay that moves TCP bytes and UDP datagrams is in relay.c. */
#include "net/sim/netsim_int.h"
#include "base/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <arpa/inet.h>

#define EPHEMERAL_LO 32768      /* Linux's ip_local_port_range */
#define EPHEMERAL_HI 60999

int netsim_unix_addr(struct sockaddr_un *a, const char *dir, const char *leaf)
{
    size_t d = strlen(dir), l = strlen(leaf);
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (d + 1 + l >= sizeof a->sun_path) return -1;
    memcpy(a->sun_path, dir, d);
    a->sun_path[d] = '/';
    memcpy(a->sun_path + d + 1, leaf, l + 1);
    return 0;
}

static uint64_t mask_of(struct world *w, char *const *names, size_t lo, size_t hi)
{
    uint64_t mask = 0;
    for (size_t i = lo; i < hi; i++)
        for (size_t m = 0; m < w->nmachines && m < NET_MAX_MACHINES; m++)
            if (!strcmp(w->machines[m].name, names[i])) mask |= 1ULL << m;
    return mask;
}

/* The run's network faults go into the model now, at their times, so that
 * a partition cuts from its exact start, as a [partition] does; faults.c
 * traces each when it fires. At a warm start (warm), the [chaos] ones
 * held until then. */
static bool add_faults(struct world *w, bool warm)
{
    for (size_t i = 0; i < w->nfaults; i++) {
        const struct fault_conf *f = &w->faults[i];
        /* [chaos] begins at a warm start: its faults go in then, from then. */
        bool skip = warm ? !f->drawn || f->at_ns < w->now : f->drawn && warm_pending(w);
        if (skip) continue;
        uint64_t duration = f->has_duration ? f->duration_ns : 0;
        bool ok = true;
        if (f->kind == FAULT_PARTITION) {
            struct net_partition p = { .at_ns = f->at_ns, .duration_ns = duration, .one_way = f->one_way,
                                       .side_a = mask_of(w, f->machines, 0, f->nleft),
                                       .side_b = mask_of(w, f->machines, f->nleft, f->nmachines), .name = f->name };
            ok = net_model_add_partition(w->net->model, &p);
        } else if (f->kind == FAULT_LOSS || f->kind == FAULT_DUPLICATE) {
            struct net_burst b = { .at_ns = f->at_ns, .duration_ns = duration, .name = f->name,
                                   .machines = mask_of(w, f->machines, 0, f->nmachines) };
            *(f->kind == FAULT_LOSS ? &b.loss_ppm : &b.dup_ppm) = f->rate_ppm;
            ok = net_model_add_burst(w->net->model, &b);
        }
        if (!ok) return false;
    }
    return true;
}

int netsim_init(struct world *w)
{
    struct netsim *n = calloc(1, sizeof *n);
    if (!n) return -1;
    w->net = n;
    n->epfd = -1;
    n->relay_fd = -1;
    n->udp_fd = -1;
    n->dirfd = -1;
    n->addrs = calloc(w->nmachines, sizeof *n->addrs);
    n->next_port = calloc(w->nmachines, sizeof *n->next_port);
    for (size_t i = 0; i < w->nmachines; i++) {
        struct in_addr a;
        inet_pton(AF_INET, w->machines[i].conf->address, &a);
        n->addrs[i] = ntohl(a.s_addr);
        n->next_port[i] = EPHEMERAL_LO;
    }
    n->model = net_model_new(&w->conf->net, w->nmachines, w->startup_seed, w->conf->duration_ns);
    n->queue = evq_new();
    prng_init(&n->pick, w->startup_seed, "net/pick");
    n->next_change = 0;         /* the first look traces partitions from the start */
    size_t len = strlen(w->run_dir);
    memcpy(n->dir, w->run_dir, len);
    memcpy(n->dir + len, "/net", 5);
    return n->model && n->queue && add_faults(w, false) ? 0 : -1;
}

int netsim_reseed(struct world *w, uint64_t seed)
{
    struct netsim *n = w->net;
    if (!net_model_reseed(n->model, seed, w->now, w->conf->duration_ns) || !add_faults(w, true)) return -1;
    prng_init(&n->pick, seed, "net/pick");
    /* The partitions after now are new: trace from now on (netsim_fire
     * has not yet looked at now). */
    n->next_change = net_next_change(n->model, w->now - 1);
    return 0;
}

/* The kernel objects are made when the first simulated socket is. */
int netsim_open(struct world *w)
{
    struct netsim *n = w->net;
    if (n->epfd >= 0) return 0;
    if (mkdir(n->dir, 0700) != 0 && errno != EEXIST) return -1;
    /* An AF_UNIX address holds 107 bytes, less than a run directory's path
     * may need ($TMPDIR is the caller's): every address names the directory
     * through a descriptor, so its length, and whether the network works,
     * does not depend on where $TMPDIR is. Kept by a reopening: the
     * sockets' paths name it. */
    if (n->dirfd < 0 && (n->dirfd = open(n->dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) return -1;
    snprintf(n->addr_dir, sizeof n->addr_dir, "/proc/self/fd/%d", n->dirfd);
    n->epfd = epoll_create1(EPOLL_CLOEXEC);
    n->relay_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    n->udp_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (n->epfd < 0 || n->relay_fd < 0 || n->udp_fd < 0) return -1;
    struct sockaddr_un a;
    if (netsim_unix_addr(&a, n->addr_dir, "relay") != 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int big = 64 << 20;         /* datagrams in flight to tracees count against it */
    setsockopt(n->udp_fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big);
    if (bind(n->relay_fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(n->relay_fd, 64) != 0) return -1;
    return 0;
}

int netsim_reopen(struct world *w)
{
    struct netsim *n = w->net;
    if (n->epfd < 0) return 0;
    close(n->epfd);
    close(n->relay_fd);
    close(n->udp_fd);
    n->epfd = n->relay_fd = n->udp_fd = -1;
    char relay[sizeof n->dir + 8];
    snprintf(relay, sizeof relay, "%s/relay", n->dir);
    unlink(relay);
    if (netsim_open(w) != 0) return -1;
    /* The relay ends it watched, in the new set as in the old. */
    for (size_t i = 0; i < n->nconns; i++)
        for (int d = 0; d < 2; d++) {
            struct conn *c = n->conns[i];
            struct epoll_event ev = { .events = c->watching[d], .data.ptr = &c->end[d] };
            if (c->fd[d] >= 0 && c->polling[d] && epoll_ctl(n->epfd, EPOLL_CTL_ADD, c->fd[d], &ev) != 0) return -1;
        }
    return 0;
}

int netsim_relay_end(const struct simsock *s)
{
    return s->conn && s->conn->sock[s->side] == s ? s->conn->fd[s->side] : -1;
}

int netsim_relay_end_take(struct simsock *s, int end)
{
    int fd = netsim_relay_end(s);
    int r = fd >= 0 && dup3(end, fd, O_CLOEXEC) == fd ? 0 : -1;
    close(end);
    return r;
}

size_t netsim_connected(struct world *w, uint64_t *out, size_t max)
{
    struct netsim *n = w->net;
    size_t k = 0;
    for (size_t i = 0; n && i < n->nconns; i++)
        for (int d = 0; d < 2; d++)
            if (n->conns[i]->fd[d] >= 0 && n->conns[i]->sock[d] && k < max) out[k++] = n->conns[i]->sock[d]->ino;
    return k;
}

/* Whether c waits in its listener's backlog, made, not yet accepted, and
 * what the relay wrote into it kept (struct sent: its bytes, and a FIN
 * after them): the copy's listener gets a new end in its backlog in its
 * place, with those writes again (snapnet.c). */
static bool backlogged(const struct conn *c)
{
    const struct sent *t = c->sent[1];
    if (c->state != C_ESTABLISHED || c->sock[1] || !c->listener ||
        (t && (t->bytes_lost || t->count > SENT_KEPT)))
        return false;
    for (size_t k = 0; k < c->listener->npending; k++)
        if (c->listener->pending[k] == c) return true;
    return false;
}

const char *netsim_still(struct world *w)
{
    struct netsim *n = w->net;
    if (!n || n->epfd < 0) return NULL;
    /* An open end of a connection made or being closed: its kernel side
     * (the bytes stuffed into a connecting socket, a socket gone) is not
     * one a copy makes. */
    for (size_t i = 0; i < n->nconns; i++) {
        const struct conn *c = n->conns[i];
        for (int d = 0; d < 2; d++)
            if (c->fd[d] >= 0 && (c->state != C_ESTABLISHED || c->junk || c->gone[d] ||
                                  (!c->sock[d] && !(d == 1 && backlogged(c)))))
                return "a simulated TCP connection being made or closed";
    }
    return NULL;
}

size_t netsim_backlog(const struct simsock *l)
{
    return l->npending;
}

int netsim_backlog_take(struct simsock *l, size_t k, int end)
{
    int fd = k < l->npending && l->pending[k] ? l->pending[k]->fd[1] : -1;
    int r = fd >= 0 && dup3(end, fd, O_CLOEXEC) == fd ? 0 : -1;
    close(end);
    return r;
}

int netsim_backlog_writes(const struct simsock *l, size_t k, const char **bytes, size_t *nbytes, uint32_t *sizes,
                          int max, bool *shut)
{
    const struct conn *c = k < l->npending ? l->pending[k] : NULL;
    const struct sent *t = c ? c->sent[1] : NULL;
    *bytes = NULL;
    *nbytes = 0;
    *shut = t && t->shut;
    if (!c) return -1;
    if (!t) return 0;
    if (t->bytes_lost || t->count > SENT_KEPT || t->count > (uint64_t)max) return -1;
    memcpy(sizes, t->size, t->count * sizeof *sizes);
    *bytes = t->bytes;
    *nbytes = t->nbytes;
    return (int)t->count;
}

int netsim_unread_writes(const struct simsock *s, size_t unread, uint32_t *sizes, int max, size_t *skip)
{
    const struct conn *c = s->conn;
    const struct sent *t = c && c->sock[s->side] == s ? c->sent[s->side] : NULL;
    *skip = 0;
    if (unread == 0) return 0;
    if (!t) return -1;
    uint64_t kept = t->count < SENT_KEPT ? t->count : SENT_KEPT;
    size_t sum = 0;
    int k = 0;
    while (sum < unread && (uint64_t)k < kept) sum += t->size[(t->count - 1 - (uint64_t)k++) % SENT_KEPT];
    if (sum < unread || k > max) return -1;
    for (int i = 0; i < k; i++) sizes[i] = t->size[(t->count - (uint64_t)k + (uint64_t)i) % SENT_KEPT];
    *skip = sum - unread;
    return k;
}

const char *netsim_sock_still(const struct simsock *s)
{
    if (s->dead) return "a simulated socket of a machine that crashed";
    if (s->so_error) return "a simulated socket with an error pending";
    if (s->conn && netsim_relay_end(s) >= 0) return NULL;      /* an open end of an established connection */
    if (s->conn || s->had_conn || s->dissolved) return "a simulated TCP socket whose connection ended";
    for (size_t k = 0; k < s->npending; k++)
        if (!s->pending[k]) return "a simulated listener with a connection reset before it was accepted";
    if (s->nsrc || s->queued) return "a simulated UDP socket with datagrams queued";
    return NULL;
}

void netsim_pin_sndbuf(int fd)
{
    static int half;
    if (!half) {
        const char *v = getenv("DSIM_TEST_SNDBUF");
        half = (v && atoi(v) >= 4096 ? atoi(v) : NETSIM_SNDBUF) / 2;   /* the kernel doubles it */
    }
    /* Past net.core.wmem_max only by SO_SNDBUFFORCE (CAP_NET_ADMIN). */
    if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &half, sizeof half) != 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &half, sizeof half);
}

int netsim_listen_at(struct world *w, const char *name, struct sockaddr_un *a)
{
    struct netsim *n = w->net;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || netsim_unix_addr(a, n->addr_dir, name) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    unlink(a->sun_path);
    if (bind(fd, (struct sockaddr *)a, sizeof *a) != 0 || listen(fd, 64) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void netsim_free_sockets(struct world *w)
{
    struct netsim *n = w->net;
    for (size_t i = 0; i < n->nsocks; i++) {
        struct simsock *s = n->socks[i];
        free(s->path);
        free(s->pending);
        free(s->srcq);
        free(s);
    }
    free(n->socks);
    if (n->epfd >= 0) close(n->epfd);
    if (n->relay_fd >= 0) close(n->relay_fd);
    if (n->udp_fd >= 0) close(n->udp_fd);
    if (n->dirfd >= 0) close(n->dirfd);
    net_model_free(n->model);
    free(n->addrs);
    free(n->next_port);
    free(n);
    w->net = NULL;
}

bool netsim_active(const struct world *w)
{
    return w->net && w->net->nsocks > 0;
}

bool netsim_opened(const struct world *w)
{
    return w->net && w->net->epfd >= 0;
}

struct simsock *netsim_lookup(struct world *w, ino_t ino)
{
    struct netsim *n = w->net;
    if (!n) return NULL;
    for (size_t i = n->nsocks; i-- > 0;)
        if (n->socks[i]->ino == ino) return n->socks[i];
    return NULL;
}

struct simsock *netsim_add(struct world *w, ino_t ino, int machine, int family, int type)
{
    struct netsim *n = w->net;
    struct simsock *old = netsim_lookup(w, ino);
    if (old) old->ino = 0;          /* a reused inode: the old socket is long gone */
    struct simsock *s = calloc(1, sizeof *s);
    if (!s) abort();
    s->ino = ino;
    s->machine = machine;
    s->incarnation = w->machines[machine].incarnation;
    s->family = family;
    s->type = type;
    GROW(n->socks, n->nsocks, n->capsocks);
    n->socks[n->nsocks++] = s;
    s->cookie = (uint32_t)n->nsocks;
    return s;
}

int netsim_route(struct world *w, int self, const struct saddr *a)
{
    if (a->kind == ADDR_V6_LOOP || a->kind == ADDR_ANY) return self;     /* connect to 0.0.0.0 is local */
    if ((a->ip >> 24) == 127) return self;
    for (size_t i = 0; i < w->nmachines; i++)
        if (w->net->addrs[i] == a->ip) return (int)i;
    return -1;
}

/* ---- ports ---- */

/* Whether the kernel still has socket s: its machine's network namespace
 * lists every AF_UNIX socket by inode. Read only when a port is contested. */
static bool alive(struct world *w, const struct simsock *s)
{
    struct machine *m = &w->machines[s->machine];
    if (s->dead || s->ino == 0 || !m->started || m->incarnation != s->incarnation || m->init_pid <= 0) return false;
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/net/unix", m->init_pid);
    FILE *f = fopen(path, "r");
    if (!f) return true;
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long ino;
        if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu", &ino) == 1 && ino == (unsigned long)s->ino) found = true;
    }
    fclose(f);
    return found;
}

static bool addr_overlap(const struct saddr *a, const struct saddr *b)
{
    return a->kind == ADDR_ANY || b->kind == ADDR_ANY || (a->kind == b->kind && a->ip == b->ip);
}

/* Whether a socket of family `fam` bound to a covers IPv4 / IPv6 traffic. */
static bool covers_v4(int fam, bool v6only, const struct saddr *a)
{
    return fam == AF_INET || (!v6only && a->kind != ADDR_V6_LOOP);
}

static bool covers_v6(int fam, const struct saddr *a)
{
    return fam == AF_INET6 && a->kind != ADDR_V4;
}

/* Linux's bind conflict, across families: an IPv6 wildcard without
 * IPV6_V6ONLY takes the IPv4 port too. */
static bool binds_overlap(const struct simsock *o, const struct simsock *s, const struct saddr *a)
{
    if (!addr_overlap(&o->local, a)) return false;
    return (covers_v4(o->family, o->v6only, &o->local) && covers_v4(s->family, s->v6only, a)) ||
           (covers_v6(o->family, &o->local) && covers_v6(s->family, a));
}

struct sockopt *netsim_opt(struct simsock *s, int level, int name)
{
    for (int i = 0; i < s->nopts; i++)
        if (s->opts[i].level == level && s->opts[i].name == name) return &s->opts[i];
    return NULL;
}

struct sockopt *netsim_opt_set(struct simsock *s, int level, int name, const void *val, int len)
{
    struct sockopt *o = netsim_opt(s, level, name);
    if (!o && s->nopts == SOCKOPT_MAX) return NULL;
    if (!o) o = &s->opts[s->nopts++];
    *o = (struct sockopt){ .level = level, .name = name, .len = len < 16 ? len : 16 };
    memcpy(o->val, val, (size_t)o->len);
    return o;
}

int netsim_opt_int(const struct simsock *s, int level, int name)
{
    struct sockopt *o = netsim_opt((struct simsock *)s, level, name);
    int v = 0;
    if (o) memcpy(&v, o->val, sizeof v);
    return v;
}

/* Linux's rule, simplified: two sockets of one protocol on one port and
 * overlapping addresses conflict unless both set SO_REUSEPORT, or both set
 * SO_REUSEADDR and neither listens. Sockets the kernel closed free it. */
static bool port_taken(struct world *w, const struct simsock *s, const struct saddr *a)
{
    struct netsim *n = w->net;
    if (s->type == SOCK_STREAM && !netsim_opt_int(s, SOL_SOCKET, SO_REUSEADDR))
        for (size_t i = 0; i < n->ntw; i++)
            if (n->tw[i].machine == s->machine && n->tw[i].a.port == a->port && n->tw[i].until > w->now &&
                addr_overlap(&n->tw[i].a, a) &&
                (n->tw[i].a.kind == ADDR_V6_LOOP ? covers_v6(s->family, a) : covers_v4(s->family, s->v6only, a)))
                return true;
    for (size_t i = 0; i < n->nsocks; i++) {
        struct simsock *o = n->socks[i];
        if (o == s || !o->bound || o->machine != s->machine || o->type != s->type || o->local.port != a->port)
            continue;
        if (!binds_overlap(o, s, a)) continue;
        if (netsim_opt_int(o, SOL_SOCKET, SO_REUSEPORT) && netsim_opt_int(s, SOL_SOCKET, SO_REUSEPORT)) continue;
        if (s->type == SOCK_STREAM && netsim_opt_int(o, SOL_SOCKET, SO_REUSEADDR) &&
            netsim_opt_int(s, SOL_SOCKET, SO_REUSEADDR) && !o->listening)
            continue;
        if (!alive(w, o)) {
            o->bound = false;
            o->dead = true;
            continue;
        }
        return true;
    }
    return false;
}

size_t netsim_rcvbuf(const struct simsock *s)
{
    int v = netsim_opt_int(s, SOL_SOCKET, SO_RCVBUF);
    return v > 0 ? (size_t)v : NETSIM_RCVBUF;
}

int netsim_bind(struct world *w, struct simsock *s, struct saddr a)
{
    if (s->bound) return -EINVAL;
    int self = s->machine;
    if (a.kind == ADDR_V4 && (a.ip >> 24) != 127 && a.ip != w->net->addrs[self]) return -EADDRNOTAVAIL;
    if (a.port == 0) {
        uint16_t *next = &w->net->next_port[self];
        for (int tries = 0;; tries++) {
            if (tries > EPHEMERAL_HI - EPHEMERAL_LO) return -EADDRINUSE;
            a.port = *next;
            *next = *next >= EPHEMERAL_HI ? EPHEMERAL_LO : *next + 1;
            if (!port_taken(w, s, &a)) break;
        }
    } else if (port_taken(w, s, &a)) {
        return -EADDRINUSE;
    }
    s->local = a;
    s->bound = true;
    return 0;
}

int netsim_autobind(struct world *w, struct simsock *s, const struct saddr *to)
{
    if (s->bound) return 0;
    struct saddr a = { .kind = ADDR_ANY };
    if (to) {
        /* The source address a connection gets: loopback for loopback. */
        if (to->kind == ADDR_V6_LOOP) a.kind = ADDR_V6_LOOP;
        else if (to->kind == ADDR_V4 && (to->ip >> 24) == 127) a = (struct saddr){ ADDR_V4, 0x7f000001, 0 };
        else if (to->kind == ADDR_ANY) a = (struct saddr){ ADDR_V4, 0x7f000001, 0 };
        else a = (struct saddr){ ADDR_V4, w->net->addrs[s->machine], 0 };
    }
    return netsim_bind(w, s, a);
}

int netsim_bind_path(struct world *w, struct simsock *s, int copy)
{
    if (s->path) return 0;
    if (netsim_open(w) != 0) return -errno;
    struct sockaddr_un a;
    char leaf[32];
    snprintf(leaf, sizeof leaf, "%lu", (unsigned long)s->ino);
    if (netsim_unix_addr(&a, w->net->addr_dir, leaf) != 0) return -ENAMETOOLONG;
    unlink(a.sun_path);
    if (bind(copy, (struct sockaddr *)&a, sizeof a) != 0) return -errno;
    s->path = strdup(a.sun_path);
    return 0;
}

/* Whether a socket bound to `local` (of family fam, v6only) takes traffic
 * sent to `to` on its machine. */
bool netsim_addr_accepts(const struct simsock *s, const struct saddr *to)
{
    const struct saddr *l = &s->local;
    if (s->family == AF_INET) {
        if (to->kind == ADDR_V6_LOOP) return false;
        return l->kind == ADDR_ANY || (l->kind == ADDR_V4 && (to->kind == ADDR_ANY ? l->ip == 0x7f000001 : l->ip == to->ip));
    }
    if (to->kind == ADDR_V6_LOOP) return l->kind == ADDR_ANY || l->kind == ADDR_V6_LOOP;
    if (s->v6only) return false;
    return l->kind == ADDR_ANY || (l->kind == ADDR_V4 && (to->kind == ADDR_ANY || l->ip == to->ip));
}

/* The live socket of `type` on machine m that takes traffic for `to`; for
 * several (SO_REUSEPORT), the network's stream picks one. */
struct simsock *netsim_find(struct world *w, int m, int type, const struct saddr *to, bool listening)
{
    struct netsim *n = w->net;
    struct simsock *found[16];
    int nfound = 0;
    for (size_t i = 0; i < n->nsocks && nfound < 16; i++) {
        struct simsock *s = n->socks[i];
        if (s->dead || !s->bound || s->machine != m || s->type != type || s->local.port != to->port) continue;
        if (listening && !s->listening) continue;
        if (s->incarnation != w->machines[m].incarnation || !netsim_addr_accepts(s, to)) continue;
        found[nfound++] = s;
    }
    if (nfound == 0) return NULL;
    /* A specific address beats the wildcard, as in Linux's lookup. */
    for (int i = 0; i < nfound; i++)
        if (found[i]->local.kind != ADDR_ANY) return found[i];
    return found[nfound == 1 ? 0 : (int)prng_below(&w->net->pick, (uint64_t)nfound)];
}

bool netsim_dgram_source(struct simsock *s, bool consume, struct saddr *src)
{
    if (s->srchead >= s->nsrc) return false;
    *src = s->srcq[s->srchead].from;
    if (!consume) return true;
    s->queued -= s->srcq[s->srchead].size;
    if (++s->srchead == s->nsrc) s->srchead = s->nsrc = 0;
    return true;
}
