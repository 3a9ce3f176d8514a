/* TCP and UDP sockets on the simulated network: the calls whose meaning is
 * about addresses. A tracee's AF_INET/AF_INET6 socket is an AF_UNIX socket
 * underneath (socket() is rewritten at its stop); net/sim/netsim.h says
 * how bytes move. Reads, writes, poll and close stay the kernel's. */
#include "syscalls/sys.h"
#include "net/sim/netsim.h"
#include "net/model/sockpolicy.h"
#include "world/tracer.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

/* The simulated socket behind fd, or NULL (also for a bad fd). With a copy
 * of the fd in *copy when wanted (closed by the caller). */
struct simsock *sock_of(struct world *w, struct thread *t, int fd, int *copy)
{
    if (copy) *copy = -1;
    struct stat st;
    int c = w->net ? fd_lend(w, t, fd, &st) : -1;
    if (c < 0) return NULL;
    struct simsock *s = S_ISSOCK(st.st_mode) ? netsim_lookup(w, st.st_ino) : NULL;
    if (s && copy) *copy = c;
    else fd_return(t, c);
    return s;
}

static enum sys_action done(int copy, struct thread *t, long result)
{
    fd_return(t, copy);
    return emulate(t, result);
}

/* ---- addresses between the tracee and the simulation ---- */

/* Reads a sockaddr for a socket of `family`. 0, 1 for AF_UNSPEC, or -errno. */
static int get_saddr(struct thread *t, int family, uint64_t addr, uint64_t len, struct saddr *out)
{
    unsigned char raw[28];
    if ((long)len < 2 || len > 128) return -EINVAL;
    if (!addr) return -EFAULT;
    if (mem_read(t->tid, addr, raw, len < sizeof raw ? len : sizeof raw) != 0) return -EFAULT;
    sa_family_t f;
    memcpy(&f, raw, sizeof f);
    if (f == AF_UNSPEC) return 1;
    if (f == AF_INET) {
        if (family != AF_INET) return -EAFNOSUPPORT;
        if (len < sizeof(struct sockaddr_in)) return -EINVAL;
        struct sockaddr_in a;
        memcpy(&a, raw, sizeof a);
        uint32_t ip = ntohl(a.sin_addr.s_addr);
        *out = (struct saddr){ ip ? ADDR_V4 : ADDR_ANY, ip, ntohs(a.sin_port) };
        return 0;
    }
    if (f == AF_INET6) {
        if (family != AF_INET6) return -EAFNOSUPPORT;
        if (len < sizeof(struct sockaddr_in6)) return -EINVAL;
        struct sockaddr_in6 a;
        memcpy(&a, raw, sizeof a);
        uint16_t port = ntohs(a.sin6_port);
        if (IN6_IS_ADDR_UNSPECIFIED(&a.sin6_addr)) *out = (struct saddr){ ADDR_ANY, 0, port };
        else if (IN6_IS_ADDR_LOOPBACK(&a.sin6_addr)) *out = (struct saddr){ ADDR_V6_LOOP, 0, port };
        else if (IN6_IS_ADDR_V4MAPPED(&a.sin6_addr)) {
            uint32_t ip;
            memcpy(&ip, &a.sin6_addr.s6_addr[12], sizeof ip);
            ip = ntohl(ip);
            *out = (struct saddr){ ip ? ADDR_V4 : ADDR_ANY, ip, port };
        } else *out = (struct saddr){ ADDR_V4, 0xffffffffu, port };    /* no route to it */
        return 0;
    }
    return -EAFNOSUPPORT;
}

/* Writes a as the family's sockaddr to addr, with the length protocol of
 * getsockname/accept/recvfrom (*len_addr in: room; out: full size). */
static int put_saddr(struct thread *t, int family, const struct saddr *a, uint64_t addr, uint64_t len_addr)
{
    if (!addr || !len_addr) return 0;
    int room;
    if (mem_read(t->tid, len_addr, &room, sizeof room) != 0) return -EFAULT;
    if (room < 0) return -EINVAL;
    unsigned char raw[sizeof(struct sockaddr_in6)];
    int size;
    if (family == AF_INET) {
        struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons(a->port) };
        s.sin_addr.s_addr = htonl(a->kind == ADDR_V4 ? a->ip : 0);
        memcpy(raw, &s, sizeof s);
        size = sizeof s;
    } else {
        struct sockaddr_in6 s = { .sin6_family = AF_INET6, .sin6_port = htons(a->port) };
        if (a->kind == ADDR_V6_LOOP) s.sin6_addr = in6addr_loopback;
        else if (a->kind == ADDR_V4) {
            uint32_t ip = htonl(a->ip);
            s.sin6_addr.s6_addr[10] = s.sin6_addr.s6_addr[11] = 0xff;
            memcpy(&s.sin6_addr.s6_addr[12], &ip, sizeof ip);
        }
        memcpy(raw, &s, sizeof s);
        size = sizeof s;
    }
    if (mem_write(t->tid, addr, raw, (size_t)(room < size ? room : size)) != 0) return -EFAULT;
    if (mem_write(t->tid, len_addr, &size, sizeof size) != 0) return -EFAULT;
    return 0;
}

/* As move_addr_to_user() for getsockname/getpeername: the length is read
 * (EFAULT), checked (EINVAL), as much of the address as it allows written
 * (EFAULT, a NULL address included), then the full size. */
static int put_saddr_strict(struct thread *t, int family, const struct saddr *a, uint64_t addr, uint64_t len_addr)
{
    int room;
    if (!len_addr || mem_read(t->tid, len_addr, &room, sizeof room) != 0) return -EFAULT;
    if (room < 0) return -EINVAL;
    if (room > 0 && !addr) return -EFAULT;
    if (room == 0) {
        int size = family == AF_INET ? (int)sizeof(struct sockaddr_in) : (int)sizeof(struct sockaddr_in6);
        return mem_write(t->tid, len_addr, &size, sizeof size) ? -EFAULT : 0;
    }
    return put_saddr(t, family, a, addr, len_addr);
}

int sock_put_addr(struct thread *t, const struct simsock *s, const struct saddr *a, uint64_t addr, uint64_t len_addr)
{
    return put_saddr(t, s->family, a, addr, len_addr);
}

/* The room the caller gave for an address (*len_addr), read at the entry
 * stop: the kernel overwrites it with the size of the AF_UNIX address. */
static int save_room(struct thread *t, uint64_t addr, uint64_t len_addr)
{
    int room = 0;
    if (addr && len_addr && mem_read(t->tid, len_addr, &room, sizeof room) != 0) room = 0;
    return room;
}

/* put_saddr at an exit stop: with the room saved at the entry stop. */
static int put_saddr_room(struct thread *t, int family, const struct saddr *a, uint64_t addr, uint64_t len_addr,
                          int room)
{
    if (!addr || !len_addr || mem_write(t->tid, len_addr, &room, sizeof room) != 0) return 0;
    return put_saddr(t, family, a, addr, len_addr);
}

/* ---- socket ---- */

static void socket_done(struct world *w, struct thread *t, long result)
{
    int family = t->call.socket.family, type = t->call.socket.type;
    ARG0(t) = (unsigned long long)family;       /* the registers the caller keeps */
    ARG2(t) = (unsigned long long)t->call.socket.protocol;
    t->regs_dirty = true;
    if (result < 0) return;
    struct stat st;
    int copy = fd_lend(w, t, (int)result, &st);
    struct simsock *s = copy >= 0 ? netsim_add(w, st.st_ino, t->proc->m->index, family, type) : NULL;
    if (s) netsim_pin_sndbuf(copy);
    if (s) s->protocol = t->call.socket.protocol == IPPROTO_UDPLITE ? IPPROTO_UDPLITE : type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
    if (s) s->nonblock = ARG1(t) & SOCK_NONBLOCK;       /* the caller's type, flags and all */
    fd_return(t, copy);
}

/* AF_INET and AF_INET6 stream and datagram sockets become AF_UNIX ones of
 * the same type; the socket table learns their inode at the exit stop.
 * AF_UNIX and routing netlink are the kernel's; anything else would reach
 * something real and is refused (net/model/sockpolicy.h). */
enum sys_action sys_socket(struct world *w, struct thread *t)
{
    int family = (int)ARG0(t), type = (int)ARG1(t) & 0xf, proto = (int)ARG2(t);
    int verdict = sock_policy(family, (int)ARG1(t), proto);
    if (verdict < 0) return emulate(t, verdict);
    if (verdict == SOCK_KERNEL) return SYS_PASS;
    if (!w->net) return emulate(t, -EAFNOSUPPORT);
    t->call.socket.family = family;
    t->call.socket.type = type;
    t->call.socket.protocol = proto;
    ARG0(t) = AF_UNIX;
    ARG2(t) = 0;
    t->regs_dirty = true;
    t->on_exit = socket_done;
    return SYS_PASS_EXIT;
}

/* Only AF_UNIX has socket pairs; other families answer as socket() does,
 * then EOPNOTSUPP (inet and netlink have no socketpair), before the kernel
 * would look at sv. */
enum sys_action sys_socketpair(struct world *w, struct thread *t)
{
    int verdict = sock_pair_policy((int)ARG0(t), (int)ARG1(t), (int)ARG2(t));
    return verdict < 0 ? emulate(t, verdict) : SYS_PASS;
}

/* ---- bind, listen, connect ---- */

/* A unix socket bound to a path makes a file there: its times, and its
 * directory's, are the machine's (ftimes.c), as for any other create. */
static void note_unix_path(struct world *w, struct thread *t)
{
    struct sockaddr_un un;
    size_t len = ARG2(t) < sizeof un ? (size_t)ARG2(t) : sizeof un;
    if (len <= offsetof(struct sockaddr_un, sun_path) || mem_read(t->tid, ARG1(t), &un, len) != 0 ||
        un.sun_family != AF_UNIX || !un.sun_path[0])
        return;                                     /* unnamed, abstract, or unreadable */
    char mpath[4096];
    if (!disk_entry_mpath(t, AT_FDCWD, ARG1(t) + offsetof(struct sockaddr_un, sun_path), mpath, sizeof mpath)) return;
    ftimes_note_path(w, t->proc->m, mpath);
    char *slash = strrchr(mpath, '/');
    if (slash && slash != mpath) {
        *slash = 0;
        ftimes_note_path(w, t->proc->m, mpath);
    } else if (slash) {
        ftimes_note_path(w, t->proc->m, "/");
    }
}

bool thread_has_cap(struct thread *t, int cap)
{
    char path[64], line[256];
    unsigned long long caps = 0;
    snprintf(path, sizeof path, "/proc/%d/status", t->tid);
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "CapEff:", 7)) caps = strtoull(line + 7, NULL, 16);
    if (f) fclose(f);
    return caps >> cap & 1;
}

/* Ports below 1024 (net.ipv4.ip_unprivileged_port_start) need
 * CAP_NET_BIND_SERVICE. */
static bool can_bind_low(struct thread *t) { return thread_has_cap(t, CAP_NET_BIND_SERVICE); }

/* The kernel's crypto API has a random number generator (an AF_ALG socket
 * bound to type "rng"): its bytes would be the host's. */
static bool kernel_rng(struct thread *t)
{
    struct { unsigned short family; char type[14]; } alg;
    return ARG2(t) >= sizeof alg && mem_read(t->tid, ARG1(t), &alg, sizeof alg) == 0 && alg.family == AF_ALG &&
           !strncmp(alg.type, "rng", sizeof alg.type);
}

enum sys_action sys_bind(struct world *w, struct thread *t)
{
    int copy;
    struct simsock *s = sock_of(w, t, (int)ARG0(t), &copy);
    if (!s) {
        if (kernel_rng(t)) return SYS_FENCE;
        enum sys_action a;
        if (autobind_on_bind(w, t, &a)) return a;
        note_unix_path(w, t);
        return SYS_PASS;
    }
    struct saddr a;
    int r = get_saddr(t, s->family, ARG1(t), ARG2(t), &a);
    if (r == 1 && s->family == AF_INET) r = 0, a = (struct saddr){ ADDR_ANY, 0, 0 };  /* Linux's old-style compat */
    if (r) return done(copy, t, r == 1 ? -EAFNOSUPPORT : r);
    if (a.port && a.port < 1024 && !can_bind_low(t)) return done(copy, t, -EACCES);
    if ((r = netsim_bind(w, s, a)) != 0) return done(copy, t, r);
    if (s->type == SOCK_DGRAM) r = netsim_bind_path(w, s, copy);
    return done(copy, t, r);
}

enum sys_action sys_listen(struct world *w, struct thread *t)
{
    int copy;
    struct simsock *s = sock_of(w, t, (int)ARG0(t), &copy);
    if (!s) return SYS_PASS;
    if (s->type != SOCK_STREAM) return done(copy, t, -EOPNOTSUPP);
    if (s->conn) return done(copy, t, -EINVAL);
    int r = netsim_autobind(w, s, NULL);
    if (!r) r = netsim_bind_path(w, s, copy);
    if (r) return done(copy, t, r);
    s->listening = true;
    fd_return(t, copy);
    return SYS_PASS;            /* the kernel listens on the bound AF_UNIX socket */
}

static bool connect_ready(struct world *w, struct thread *t)
{
    struct simsock *s = t->call.connect.sock;
    int err;
    return netsim_connect_done(s, &err);
}

enum sys_action sys_connect(struct world *w, struct thread *t)
{
    if (t->retry) {
        /* A blocking connect: the handshake has ended one way or the other. */
        int err;
        struct simsock *s = t->call.connect.sock;
        if (!netsim_connect_done(s, &err)) return block(t, UINT64_MAX, connect_ready);
        if (err) s->so_error = 0;
        else s->connected = true;
        return emulate(t, err);
    }
    int copy;
    struct simsock *s = sock_of(w, t, (int)ARG0(t), &copy);
    if (!s) {
        autobind_before_send(w, t, (int)ARG0(t));
        return SYS_PASS;
    }
    struct saddr a;
    int r = get_saddr(t, s->family, ARG1(t), ARG2(t), &a);
    if (s->type == SOCK_DGRAM) {
        if (r == 1) {                   /* AF_UNSPEC: dissolve the association */
            s->connected = false;
            return done(copy, t, 0);
        }
        if (r) return done(copy, t, r);
        if (netsim_route(w, s->machine, &a) < 0) return done(copy, t, -ENETUNREACH);
        if (!s->bound && (r = netsim_autobind(w, s, &a)) != 0) return done(copy, t, r);
        if ((r = netsim_bind_path(w, s, copy)) != 0) return done(copy, t, r);
        s->peer = a;
        if (s->peer.kind == ADDR_ANY) s->peer = (struct saddr){ ADDR_V4, 0x7f000001, a.port };
        s->connected = true;
        return done(copy, t, 0);
    }
    if (r == 1) {
        /* AF_UNSPEC: a TCP socket drops its connection (a reset to the
         * peer) and is unconnected again; an unconnected one stays so. */
        if (s->conn || s->connected) netsim_dissolve(w, s);
        return done(copy, t, 0);
    }
    if (r) return done(copy, t, r);
    if (s->listening) return done(copy, t, -EINVAL);
    if (s->dissolved) {
        /* Its kernel socket is still joined to the old connection's relay
         * end: connecting it again would need a new one. */
        fd_return(t, copy);
        return SYS_FENCE;
    }
    if (s->conn) {
        int err;
        if (!netsim_connect_done(s, &err)) return done(copy, t, -EALREADY);
        if (s->connected) return done(copy, t, -EISCONN);
        /* The first connect after a non-blocking one finished reports it. */
        s->connected = !err;
        if (err) s->so_error = 0;
        return done(copy, t, err);
    }
    if (s->family == AF_INET6 && s->v6only && a.kind == ADDR_V4) return done(copy, t, -ENETUNREACH);
    int fl = fcntl(copy, F_GETFL);
    bool nonblock = fl >= 0 && (fl & O_NONBLOCK);
    r = netsim_connect(w, s, copy, &a, nonblock);
    fd_return(t, copy);
    if (r) return emulate(t, r);
    if (nonblock) return emulate(t, -EINPROGRESS);
    t->call.connect.sock = s;
    return block(t, UINT64_MAX, connect_ready);
}

/* ---- O_NONBLOCK of a simulated socket ---- */

static void nonblock_done(struct world *w, struct thread *t, long result)
{
    (void)w;
    struct simsock *s = t->call.nonblock.sock;
    if (result != 0) return;
    if (SYSNR(t) == SYS_fcntl) {
        s->nonblock = ARG2(t) & O_NONBLOCK;
    } else {
        int on;
        if (mem_read(t->tid, ARG2(t), &on, sizeof on) == 0) s->nonblock = on != 0;
    }
}

/* fcntl(F_SETFL) and ioctl(FIONBIO): on a simulated socket, its O_NONBLOCK
 * is kept from the exit stop on; anything else passes as it is. */
enum sys_action sock_nonblock_call(struct world *w, struct thread *t)
{
    struct simsock *s = sock_of(w, t, (int)ARG0(t), NULL);
    if (!s) return SYS_PASS;
    t->call.nonblock.sock = s;
    t->exit_quiet = nonblock_done;     /* the event stays a passed call's: hashes as before */
    return SYS_PASS;
}

/* ---- accept and names ---- */

static void accept_done(struct world *w, struct thread *t, long result)
{
    struct simsock *l = t->call.accept.listener;
    if (result < 0) return;
    struct stat st;
    int copy = fd_lend(w, t, (int)result, &st);
    struct simsock *s = copy >= 0 ? netsim_accepted(w, l, st.st_ino) : NULL;
    if (s) netsim_pin_sndbuf(copy);
    if (s) s->nonblock = SYSNR(t) == SYS_accept4 && (ARG3(t) & SOCK_NONBLOCK);
    fd_return(t, copy);
    if (s) put_saddr_room(t, s->family, &s->peer, ARG1(t), ARG2(t), t->call.accept.room);
}

/* accept4's SOCK_NONBLOCK is for the new fd: the listening fd's own
 * O_NONBLOCK is what decides, and must_wait reads it. */
enum sys_action sys_accept(struct world *w, struct thread *t) { return recv_call(w, t, 0); }

/* The kernel accepts (accept and accept4 on a listener, after rw.c found it
 * readable): the address it reports is fixed at the exit stop. */
enum sys_action sock_accept(struct world *w, struct thread *t, struct simsock *l)
{
    t->call.accept.listener = l;
    t->call.accept.room = save_room(t, ARG1(t), ARG2(t));
    t->on_exit = accept_done;
    return SYS_PASS_EXIT;
}

static enum sys_action name_call(struct world *w, struct thread *t, bool peer)
{
    struct simsock *s = sock_of(w, t, (int)ARG0(t), NULL);
    if (!s) return SYS_PASS;
    if (peer) {
        int err = 0;
        if (!s->connected && !(s->conn && netsim_connect_done(s, &err) && !err)) return emulate(t, -ENOTCONN);
        return emulate(t, put_saddr_strict(t, s->family, &s->peer, ARG1(t), ARG2(t)));
    }
    struct saddr a = s->bound ? s->local : (struct saddr){ ADDR_ANY, 0, 0 };
    return emulate(t, put_saddr_strict(t, s->family, &a, ARG1(t), ARG2(t)));
}

enum sys_action sys_getsockname(struct world *w, struct thread *t) { return name_call(w, t, false); }
enum sys_action sys_getpeername(struct world *w, struct thread *t) { return name_call(w, t, true); }

/* ---- datagrams and reads ---- */

#define DGRAM_MAX 65507         /* the largest UDP payload over IPv4 */

/* One datagram from the tracee's buffers, sent by the supervisor. */
long sock_send_dgram(struct world *w, struct thread *t, struct simsock *s, int copy, const struct iovec *iov,
                     unsigned long n, uint64_t addr, uint64_t addrlen)
{
    struct saddr to, *top = NULL;
    if (addr && addrlen) {
        int r = get_saddr(t, s->family, addr, addrlen, &to);
        if (r) return r == 1 ? -EAFNOSUPPORT : r;
        if (s->family == AF_INET6 && s->v6only && to.kind == ADDR_V4) return -ENETUNREACH;
        if (to.kind == ADDR_ANY) to = (struct saddr){ ADDR_V4, 0x7f000001, to.port };
        top = &to;
    }
    size_t total = 0;
    for (unsigned long i = 0; i < n; i++) total += iov[i].iov_len;
    if (total > DGRAM_MAX) return -EMSGSIZE;
    static char buf[DGRAM_MAX];
    size_t got = 0;
    for (unsigned long i = 0; i < n; i++) {
        if (iov[i].iov_len && mem_read(t->tid, (uint64_t)(uintptr_t)iov[i].iov_base, buf + got, iov[i].iov_len) != 0)
            return -EFAULT;
        got += iov[i].iov_len;
    }
    if (!top && !s->connected) return -EDESTADDRREQ;
    /* The reply must find it: the kernel socket gets its path now (and
     * netsim_send_dgram binds an unbound one to a port). */
    int r = netsim_bind_path(w, s, copy);
    return r ? r : netsim_send_dgram(w, s, top, buf, got);
}

/* recvfrom and recvmsg of a datagram: the address the kernel wrote is the
 * supervisor's socket; the datagram's simulated source replaces it. Reads
 * without an address take their datagram's source off the queue too. */
static void dgram_recv_done(struct world *w, struct thread *t, long result)
{
    struct simsock *s = t->call.recv_dgram.sock;
    long nr = SYSNR(t);
    if (t->call.recv_dgram.oob) {            /* the caller's MSG_OOB, in the register it keeps */
        if (nr == SYS_recvfrom) ARG3(t) |= MSG_OOB;
        else if (nr == SYS_recvmsg) ARG2(t) |= MSG_OOB;
        t->regs_dirty = true;
    }
    int flags = nr == SYS_recvfrom ? (int)ARG3(t) : nr == SYS_recvmsg ? (int)ARG2(t) : 0;
    if (result < 0) return;
    struct saddr src;
    if (!netsim_dgram_source(s, !(flags & MSG_PEEK), &src)) return;
    if (nr == SYS_recvfrom) {
        put_saddr_room(t, s->family, &src, ARG4(t), ARG5(t), t->call.recv_dgram.room);
    } else if (nr == SYS_recvmsg) {
        struct msghdr m;
        if (mem_read(t->tid, ARG1(t), &m, sizeof m) != 0 || !m.msg_name) return;
        put_saddr_room(t, s->family, &src, (uint64_t)(uintptr_t)m.msg_name,
                       ARG1(t) + offsetof(struct msghdr, msg_namelen), t->call.recv_dgram.room);
    }
}

/* TCP: recvfrom and recvmsg report no address and leave the caller's
 * address buffer alone (a bad pointer included); the kernel was given none
 * (call.recv_stream held the caller's), since it would write the relay's. */
static void stream_recv_done(struct world *w, struct thread *t, long result)
{
    long nr = SYSNR(t);
    int zero = 0;
    uint64_t name = t->call.recv_stream.name;
    if (nr == SYS_recvfrom && name) {
        ARG4(t) = name;                 /* the register the caller keeps */
        t->regs_dirty = true;
    } else if (nr == SYS_recvmsg && name) {
        mem_write(t->tid, ARG1(t) + offsetof(struct msghdr, msg_name), &name, sizeof name);
    }
    if (result < 0) return;
    if (nr == SYS_recvfrom && name && mem_write(t->tid, ARG5(t), &zero, sizeof zero)) {
        t->regs.rax = (unsigned long long)-EFAULT;      /* as move_addr_to_user() */
        t->regs_dirty = true;
    } else if (nr == SYS_recvmsg) {
        mem_write(t->tid, ARG1(t) + offsetof(struct msghdr, msg_namelen), &zero, sizeof zero);
    }
}

/* Hides the caller's address buffer from the kernel for a TCP receive. */
static void stream_recv_hide_name(struct thread *t)
{
    long nr = SYSNR(t);
    uint64_t none = 0;
    t->call.recv_stream.name = 0;
    if (nr == SYS_recvfrom && ARG4(t)) {
        t->call.recv_stream.name = ARG4(t);
        ARG4(t) = 0;
        t->regs_dirty = true;
    } else if (nr == SYS_recvmsg) {
        uint64_t name;
        if (mem_read(t->tid, ARG1(t) + offsetof(struct msghdr, msg_name), &name, sizeof name) == 0 && name &&
            mem_write(t->tid, ARG1(t) + offsetof(struct msghdr, msg_name), &none, sizeof none) == 0)
            t->call.recv_stream.name = name;
    }
}

/* A read of a simulated socket that the kernel may now make: a reset
 * connection reports its error once its data is read; otherwise the kernel
 * reads, and the exit stop fixes the address. */
enum sys_action sock_read(struct world *w, struct thread *t, struct simsock *s, int copy)
{
    long nr = SYSNR(t);
    int flags = nr == SYS_recvfrom ? (int)ARG3(t) : nr == SYS_recvmsg ? (int)ARG2(t) : 0;
    /* No errors are ever queued in the simulation. */
    if (flags & MSG_ERRQUEUE) return emulate(t, -EAGAIN);
    /* A TCP socket that never had a connection (never connected,
     * listening, or dissolved) has nothing to read; one whose connection
     * ended reads its end. */
    if (s->type == SOCK_STREAM && !s->conn && !s->connected && !s->had_conn) return emulate(t, -ENOTCONN);
    if (s->type == SOCK_DGRAM && s->so_error && s->connected) {
        int e = s->so_error;
        s->so_error = 0;
        return emulate(t, -e);
    }
    if (s->type == SOCK_STREAM && s->so_error && s->connected) {
        int queued = 0;
        if (ioctl(copy, FIONREAD, &queued) == 0 && queued == 0) {
            int e = s->so_error;
            s->so_error = 0;
            return emulate(t, -e);
        }
    }
    if (s->type == SOCK_STREAM) {
        if (nr != SYS_recvfrom && nr != SYS_recvmsg) return SYS_PASS;
        stream_recv_hide_name(t);
        t->on_exit = stream_recv_done;
        return SYS_PASS_EXIT;
    }
    /* UDP ignores MSG_OOB on receive; the AF_UNIX socket below would
     * refuse it: the kernel is not shown it (restored at the exit stop). */
    if (flags & MSG_OOB) {
        t->call.recv_dgram.oob = true;
        if (nr == SYS_recvfrom) ARG3(t) &= ~(unsigned long long)MSG_OOB;
        else ARG2(t) &= ~(unsigned long long)MSG_OOB;
        t->regs_dirty = true;
    } else {
        t->call.recv_dgram.oob = false;
    }
    if (nr == SYS_recvmsg) {
        struct msghdr m;
        if (mem_read(t->tid, ARG1(t), &m, sizeof m) != 0) return SYS_PASS;
        t->call.recv_dgram.room = (int)m.msg_namelen;
    } else if (nr == SYS_recvfrom) {
        t->call.recv_dgram.room = save_room(t, ARG4(t), ARG5(t));
    }
    t->call.recv_dgram.sock = s;
    t->on_exit = dgram_recv_done;
    return SYS_PASS_EXIT;
}
