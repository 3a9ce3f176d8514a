/* setsockopt and getsockopt of simulated sockets. Every option is kept and
 * read back; the ones that mean something to the simulation are read where
 * they matter (SO_REUSEADDR, SO_REUSEPORT, IPV6_V6ONLY, the buffer sizes,
 * SO_LINGER, the keepalive options, TCP_CORK and TCP_NODELAY, the
 * timeouts: fdwait.c). What a value becomes, which values are refused and
 * what is read back when nothing was set follow Linux's sk_setsockopt,
 * do_ip_setsockopt, do_ipv6_setsockopt and do_tcp_setsockopt, with a
 * machine's own sysctls: Linux's defaults, not the host's. */
#include "syscalls/sys.h"
#include "net/sim/netsim.h"
#include "base/xalloc.h"
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>

/* The sysctls these options read, as a machine has them. */
#define TCP_RMEM_MAX 6291456        /* net.ipv4.tcp_rmem[2] */
#define KEEPALIVE_TIME_S 7200       /* net.ipv4.tcp_keepalive_time, _intvl, _probes */
#define KEEPALIVE_INTVL_S 75
#define KEEPALIVE_PROBES 9
#define SYN_RETRIES 6               /* net.ipv4.tcp_syn_retries */
#define DEFAULT_TTL 64              /* net.ipv4.ip_default_ttl, net.ipv6.conf.all.hop_limit */
/* Timeouts are kept in jiffies: what a machine reads back, and waits, is
 * rounded up to its kernel's tick (Debian's CONFIG_HZ), not the host's.
 * DSIM_TEST_SOCK_HZ gives a machine another (a test's way to tell dsim's
 * rounding from the host kernel's, where the host's tick is the same). */
static long sock_hz(void)
{
    static long hz;
    if (!hz) {
        const char *v = getenv("DSIM_TEST_SOCK_HZ");
        hz = v && (atol(v) == 100 || atol(v) == 300 || atol(v) == 1000) ? atol(v) : 250;
    }
    return hz;
}
#define SOCK_MIN_SNDBUF 4608        /* this kernel's 2 * (2048 + sizeof(struct sk_buff)) */
#define SOCK_MIN_RCVBUF 2304
#define TCP_MIN_MSS 88
#define MAX_TCP_WINDOW 32767
#define MAX_TCP_SYNCNT 127
#define MAX_TCP_KEEPIDLE 32767      /* and MAX_TCP_KEEPINTVL */
#define MAX_TCP_KEEPCNT 127
#define IFNAMSIZ_ 16                /* IFNAMSIZ */
#define CA_NAME_MAX 16              /* TCP_CA_NAME_MAX */
#define TCP_INFO_SIZE 232           /* sizeof(struct tcp_info) in Linux 6.1 */

static bool known_level(int level)
{
    return level == SOL_SOCKET || level == IPPROTO_TCP || level == IPPROTO_IP || level == IPPROTO_IPV6 ||
           level == IPPROTO_UDP || level == IPPROTO_UDPLITE;
}

/* Group memberships, which a connection-oriented socket refuses (EPROTO). */
static bool is_multicast_membership(int level, int name)
{
    if (level == IPPROTO_IP)
        return name == IP_ADD_MEMBERSHIP || name == IP_DROP_MEMBERSHIP || name == IP_ADD_SOURCE_MEMBERSHIP ||
               name == IP_DROP_SOURCE_MEMBERSHIP || name == IP_BLOCK_SOURCE || name == IP_UNBLOCK_SOURCE ||
               name == MCAST_JOIN_GROUP || name == MCAST_LEAVE_GROUP || name == MCAST_JOIN_SOURCE_GROUP ||
               name == MCAST_LEAVE_SOURCE_GROUP || name == MCAST_BLOCK_SOURCE || name == MCAST_UNBLOCK_SOURCE;
    if (level == IPPROTO_IPV6)
        return name == IPV6_ADD_MEMBERSHIP || name == IPV6_DROP_MEMBERSHIP || name == MCAST_JOIN_GROUP ||
               name == MCAST_LEAVE_GROUP || name == MCAST_JOIN_SOURCE_GROUP || name == MCAST_LEAVE_SOURCE_GROUP;
    return false;
}

/* Options Linux keeps as a flag: read back as 0 or 1. */
static bool boolean_option(int level, int name)
{
    if (level == SOL_SOCKET)
        return name == SO_REUSEADDR || name == SO_REUSEPORT || name == SO_DONTROUTE || name == SO_BROADCAST ||
               name == SO_KEEPALIVE || name == SO_OOBINLINE || name == SO_PASSCRED;
    return level == IPPROTO_TCP && (name == TCP_NODELAY || name == TCP_CORK);
}

/* Whether Linux knows the option at this level for this socket, for a set
 * or a get: 0, or the error it gives (ENOPROTOOPT; a get at a level the
 * protocol passes down to IP, which knows only its own: EOPNOTSUPP). Read
 * only options refuse a set. Option numbers past the last one Linux has
 * are unknown; the ones below it are taken as known. */
static int option_known(const struct simsock *s, int level, int name, bool set)
{
    bool tcp = s->type == SOCK_STREAM;
    /* IPv6's protocols hand another level to ipv6_getsockopt, which knows
     * none (ENOPROTOOPT); IPv4's to ip_getsockopt (EOPNOTSUPP). */
    int other_level = set || s->family == AF_INET6 ? -ENOPROTOOPT : -EOPNOTSUPP;
    switch (level) {
    case SOL_SOCKET:
        if (name < 1 || name > 80) return -ENOPROTOOPT;
        if (set && (name == SO_TYPE || name == SO_ERROR || name == SO_ACCEPTCONN || name == SO_PEERCRED ||
                    name == SO_PEERNAME || name == SO_PEERSEC || name == SO_DOMAIN || name == SO_PROTOCOL ||
                    name == SO_MEMINFO || name == SO_INCOMING_NAPI_ID || name == SO_COOKIE || name == SO_PEERGROUPS ||
                    name == SO_NETNS_COOKIE || name == 77 /* SO_PEERPIDFD */ || name == SO_SNDLOWAT))
            return -ENOPROTOOPT;
        if (!set && (name == SO_SNDBUFFORCE || name == SO_RCVBUFFORCE)) return -ENOPROTOOPT;
        return 0;
    case IPPROTO_IP:
        if (name < 1 || name > 60) return -ENOPROTOOPT;
        if (set && name == IP_MTU) return -ENOPROTOOPT;
        return 0;
    case IPPROTO_IPV6:
        if (s->family != AF_INET6) return other_level;
        return name < 1 || name > 90 ? -ENOPROTOOPT : 0;
    case IPPROTO_TCP:
        if (!tcp) return other_level;
        if (name < 1 || name > 45) return -ENOPROTOOPT;
        if (set && (name == TCP_INFO || name == TCP_CC_INFO || name == 43 /* TCP_IS_MPTCP */)) return -ENOPROTOOPT;
        return 0;
    case IPPROTO_UDP:
    case IPPROTO_UDPLITE:
        if (tcp || (level == IPPROTO_UDPLITE && s->protocol != IPPROTO_UDPLITE)) return other_level;
        return name == UDP_CORK || (name >= 100 && name <= 104) || (level == IPPROTO_UDPLITE && (name == 10 || name == 11))
                   ? 0 : -ENOPROTOOPT;
    }
    return -ENOPROTOOPT;
}

static bool timeout_option(int level, int name)
{
    return level == SOL_SOCKET && (name == SO_RCVTIMEO || name == SO_SNDTIMEO);
}

/* TCP_DEFER_ACCEPT's seconds as retransmissions and back (tcp.c), at
 * TCP_TIMEOUT_INIT 1 s doubling to TCP_RTO_MAX 120 s. */
static int secs_to_retrans(int seconds)
{
    int res = 0, timeout = 1, period = 1;
    if (seconds <= 0) return 0;
    for (res = 1; seconds > period && res < 255; res++) {
        timeout = timeout * 2 > 120 ? 120 : timeout * 2;
        period += timeout;
    }
    return res;
}

static int retrans_to_secs(int retrans)
{
    int timeout = 1, period = retrans > 0 ? 1 : 0;
    while (retrans-- > 1) {
        timeout = timeout * 2 > 120 ? 120 : timeout * 2;
        period += timeout;
    }
    return period;
}

/* A timeout as sock_set_timeout keeps it and sock_get_timeout reads it
 * back: EDOM for microseconds out of range, none (0) for a negative or
 * zero time, else rounded up to a tick. */
static int timeout_value(struct timeval *tv)
{
    if (tv->tv_usec < 0 || tv->tv_usec >= 1000000) return -EDOM;
    if (tv->tv_sec < 0 || (!tv->tv_sec && !tv->tv_usec)) {
        *tv = (struct timeval){ 0, 0 };
        return 0;
    }
    long hz = sock_hz(), tick = 1000000 / hz;
    if (tv->tv_sec >= LONG_MAX / hz - 1) {
        *tv = (struct timeval){ 0, 0 };     /* MAX_SCHEDULE_TIMEOUT: none */
        return 0;
    }
    long jiffies = tv->tv_sec * hz + (tv->tv_usec + tick - 1) / tick;
    *tv = (struct timeval){ jiffies / hz, jiffies % hz * tick };
    return 0;
}

/* ---- a machine's own sockets' timeouts ---- */

/* A socket of a machine's own (a unix socket, a socket pair) keeps its
 * options in the kernel, which rounds its timeouts to the host's tick:
 * dsim keeps them too, as a machine's kernel would, for its waits
 * (fdwait.c) and for their reads back. */
struct sock_timeouts *sock_timeouts_of(struct world *w, ino_t ino, bool make)
{
    for (size_t i = 0; i < w->nsock_timeouts; i++)
        if (w->sock_timeouts[i].ino == ino) return &w->sock_timeouts[i];
    if (!make) return NULL;
    GROW(w->sock_timeouts, w->nsock_timeouts, w->capsock_timeouts);
    struct sock_timeouts *e = &w->sock_timeouts[w->nsock_timeouts++];
    *e = (struct sock_timeouts){ .ino = ino };
    return e;
}

/* The inode of the machine's own socket at fd, or 0. */
static ino_t own_socket(struct world *w, struct thread *t, int fd)
{
    struct stat st;
    int copy = fd_lend(w, t, fd, &st);
    if (copy < 0) return 0;
    fd_return(t, copy);
    return S_ISSOCK(st.st_mode) ? st.st_ino : 0;
}

/* setsockopt of a timeout on such a socket: kept as it would be (the
 * kernel gives the call's result, EDOM and EINVAL included). */
static enum sys_action own_timeout_set(struct world *w, struct thread *t)
{
    int name = (int)ARG2(t);
    struct timeval tv;
    ino_t ino;
    if ((int)ARG1(t) != SOL_SOCKET || !timeout_option(SOL_SOCKET, name) || ARG4(t) < sizeof tv ||
        !(ino = own_socket(w, t, (int)ARG0(t))) || mem_read(t->tid, ARG3(t), &tv, sizeof tv) != 0 ||
        timeout_value(&tv) != 0)
        return SYS_PASS;
    sock_timeouts_of(w, ino, true)->tv[name == SO_SNDTIMEO] = tv;
    return SYS_PASS;
}

/* getsockopt of a timeout dsim kept: answered from it. */
static enum sys_action own_timeout_get(struct world *w, struct thread *t)
{
    int name = (int)ARG2(t), room;
    ino_t ino;
    const struct sock_timeouts *e;
    if ((int)ARG1(t) != SOL_SOCKET || !timeout_option(SOL_SOCKET, name) || !(ino = own_socket(w, t, (int)ARG0(t))) ||
        !(e = sock_timeouts_of(w, ino, false)) || mem_read(t->tid, ARG4(t), &room, sizeof room) != 0 || room < 0)
        return SYS_PASS;
    int n = room < (int)sizeof e->tv[0] ? room : (int)sizeof e->tv[0];
    if (mem_write(t->tid, ARG3(t), &e->tv[name == SO_SNDTIMEO], (size_t)n) != 0 ||
        mem_write(t->tid, ARG4(t), &n, sizeof n) != 0)
        return emulate(t, -EFAULT);
    return emulate(t, 0);
}

/* The value setsockopt keeps for an int option v, in *v, or -errno. */
static int int_value(struct thread *t, struct simsock *s, int level, int name, int *v)
{
    if (level == SOL_SOCKET) {
        switch (name) {
        case SO_SNDBUFFORCE: case SO_RCVBUFFORCE:
            if (!thread_has_cap(t, CAP_NET_ADMIN)) return -EPERM;
            /* fall through */
        case SO_SNDBUF: case SO_RCVBUF: {
            /* Capped at the sysctl's maximum as an unsigned number (a
             * negative size is the maximum), or only made non-negative when
             * forced; doubled; at least the least buffer. */
            bool snd = name == SO_SNDBUF || name == SO_SNDBUFFORCE;
            unsigned int max = snd ? NETSIM_WMEM_MAX : NETSIM_RMEM_MAX;
            if (name == SO_SNDBUFFORCE || name == SO_RCVBUFFORCE) *v = *v < 0 ? 0 : *v;
            else *v = (unsigned int)*v < max ? *v : (int)max;
            if (*v > INT_MAX / 2) *v = INT_MAX / 2;
            int least = snd ? SOCK_MIN_SNDBUF : SOCK_MIN_RCVBUF;
            *v = *v * 2 < least ? least : *v * 2;
            return 0;
        }
        case SO_RCVLOWAT: {
            if (*v < 0) *v = INT_MAX;
            if (s->type == SOCK_STREAM) {       /* tcp_set_rcvlowat: half the buffer it may grow to */
                int rcvbuf = netsim_opt_int(s, SOL_SOCKET, SO_RCVBUF);
                int cap = (netsim_opt(s, SOL_SOCKET, SO_RCVBUF) ? rcvbuf : TCP_RMEM_MAX) >> 1;
                if (*v > cap) *v = cap;
            }
            *v = *v ? *v : 1;
            return 0;
        }
        }
    } else if (level == IPPROTO_IP) {
        if (name == IP_TTL && *v != -1 && (*v < 1 || *v > 255)) return -EINVAL;
    } else if (level == IPPROTO_IPV6) {
        if (name == IPV6_UNICAST_HOPS && (*v < -1 || *v > 255)) return -EINVAL;
        if (name == IPV6_MTU && *v && *v < 1280) return -EINVAL;     /* IPV6_MIN_MTU */
    } else if (level == IPPROTO_TCP) {
        switch (name) {
        case TCP_MAXSEG:
            return *v && (*v < TCP_MIN_MSS || *v > MAX_TCP_WINDOW) ? -EINVAL : 0;
        case TCP_KEEPIDLE: case TCP_KEEPINTVL:
            return *v < 1 || *v > MAX_TCP_KEEPIDLE ? -EINVAL : 0;
        case TCP_KEEPCNT:
            return *v < 1 || *v > MAX_TCP_KEEPCNT ? -EINVAL : 0;
        case TCP_SYNCNT:
            return *v < 1 || *v > MAX_TCP_SYNCNT ? -EINVAL : 0;
        case TCP_USER_TIMEOUT:
            return *v < 0 ? -EINVAL : 0;
        case TCP_DEFER_ACCEPT:
            *v = secs_to_retrans(*v);           /* kept as retransmissions */
            return 0;
        case TCP_WINDOW_CLAMP:
            if (!*v) return s->connected || s->listening ? -EINVAL : 0;
            *v = *v < SOCK_MIN_RCVBUF / 2 ? SOCK_MIN_RCVBUF / 2 : *v;
            return 0;
        }
    }
    if (boolean_option(level, name)) *v = *v != 0;
    return 0;
}

/* SO_BINDTODEVICE: a machine has only lo; an empty name unbinds. */
static enum sys_action bind_to_device(struct thread *t, struct simsock *s, uint64_t len)
{
    char name[IFNAMSIZ_] = { 0 };
    size_t n = len < sizeof name - 1 ? len : sizeof name - 1;
    if (n && mem_read(t->tid, ARG3(t), name, n) != 0) return emulate(t, -EFAULT);
    if (name[0] && strcmp(name, "lo")) return emulate(t, -ENODEV);
    netsim_opt_set(s, SOL_SOCKET, SO_BINDTODEVICE, name, (int)strlen(name) + 1);
    return emulate(t, 0);
}

/* TCP_CONGESTION: a machine's kernel has reno and cubic (its default). */
static enum sys_action congestion_set(struct thread *t, struct simsock *s, uint64_t len)
{
    char name[CA_NAME_MAX] = { 0 };
    size_t n = len < sizeof name - 1 ? len : sizeof name - 1;
    if (n && mem_read(t->tid, ARG3(t), name, n) != 0) return emulate(t, -EFAULT);
    if (strcmp(name, "reno") && strcmp(name, "cubic")) return emulate(t, -ENOENT);
    netsim_opt_set(s, IPPROTO_TCP, TCP_CONGESTION, name, CA_NAME_MAX);
    return emulate(t, 0);
}

enum sys_action sys_setsockopt(struct world *w, struct thread *t)
{
    struct simsock *s = sock_of(w, t, (int)ARG0(t), NULL);
    if (!s) return own_timeout_set(w, t);
    int level = (int)ARG1(t), name = (int)ARG2(t);
    uint64_t len = ARG4(t);
    if (!known_level(level)) return emulate(t, -ENOPROTOOPT);
    if (level == SOL_SOCKET && name == SO_BINDTODEVICE) return bind_to_device(t, s, len);
    int known = option_known(s, level, name, true);
    if (known) return emulate(t, known);
    if (s->type == SOCK_STREAM && is_multicast_membership(level, name)) return emulate(t, -EPROTO);
    if (level == IPPROTO_TCP && name == TCP_CONGESTION) return congestion_set(t, s, len);
    if ((int)len < (int)sizeof(int)) return emulate(t, -EINVAL);
    unsigned char val[16] = { 0 };
    size_t n = len < sizeof val ? len : sizeof val;
    if (mem_read(t->tid, ARG3(t), val, n) != 0) return emulate(t, -EFAULT);
    int v;
    memcpy(&v, val, sizeof v);
    int keep = sizeof v;                /* the size read back */
    if (level == IPPROTO_IPV6 && name == IPV6_V6ONLY) {
        if (s->bound) return emulate(t, -EINVAL);
        s->v6only = v != 0;
    }
    if (level == SOL_SOCKET && name == SO_LINGER) {
        struct linger l;
        if (len < sizeof l) return emulate(t, -EINVAL);
        memcpy(&l, val, sizeof l);
        /* Off keeps the last time; the flag reads back as 0 or 1. */
        const struct sockopt *was = netsim_opt(s, SOL_SOCKET, SO_LINGER);
        struct linger old = { 0, 0 };
        if (was) memcpy(&old, was->val, sizeof old);
        l = l.l_onoff ? (struct linger){ 1, l.l_linger } : (struct linger){ 0, old.l_linger };
        memcpy(val, &l, sizeof l);
        keep = sizeof l;
        s->abort_close = l.l_onoff && !l.l_linger;
    } else if (timeout_option(level, name)) {
        struct timeval tv;
        if (len < sizeof tv) return emulate(t, -EINVAL);
        memcpy(&tv, val, sizeof tv);
        int r = timeout_value(&tv);
        if (r) return emulate(t, r);
        memcpy(val, &tv, sizeof tv);
        keep = sizeof tv;
    } else {
        int r = int_value(t, s, level, name, &v);
        if (r) return emulate(t, r);
        memcpy(val, &v, sizeof v);
        if (name == SO_SNDBUFFORCE || name == SO_RCVBUFFORCE) name = name == SO_SNDBUFFORCE ? SO_SNDBUF : SO_RCVBUF;
    }
    netsim_opt_set(s, level, name, val, keep);
    /* Uncorking sends what waits; so does TCP_NODELAY, even when corked. */
    if (level == IPPROTO_TCP && ((name == TCP_CORK && !v) || (name == TCP_NODELAY && v))) netsim_hold(w, s, HOLD_NONE);
    if ((level == SOL_SOCKET && name == SO_KEEPALIVE) ||
        (level == IPPROTO_TCP && (name == TCP_KEEPIDLE || name == TCP_KEEPINTVL || name == TCP_KEEPCNT)))
        netsim_keepalive(w, s);
    /* Timeouts also go to the AF_UNIX socket underneath (a read the kernel
     * makes keeps to them); dsim's waits read the value kept here. */
    if (timeout_option(level, name)) return SYS_PASS;
    return emulate(t, 0);
}

/* What Linux reports for an option never set (and its size). */
static int opt_default(const struct simsock *s, int level, int name, int *size)
{
    if (level == SOL_SOCKET) {
        switch (name) {
        case SO_RCVBUF: return s->type == SOCK_STREAM ? 131072 : NETSIM_RCVBUF;     /* tcp_rmem[1] */
        case SO_SNDBUF: return s->type == SOCK_STREAM ? 16384 : NETSIM_SNDBUF;      /* tcp_wmem[1] */
        case SO_RCVLOWAT: case SO_SNDLOWAT: return 1;
        case SO_LINGER: *size = sizeof(struct linger); return 0;
        case SO_RCVTIMEO: case SO_SNDTIMEO: *size = sizeof(struct timeval); return 0;
        }
    } else if (level == IPPROTO_IP && name == IP_TTL) {
        return DEFAULT_TTL;
    } else if (level == IPPROTO_IPV6 && name == IPV6_UNICAST_HOPS) {
        return DEFAULT_TTL;
    } else if (level == IPPROTO_TCP) {
        switch (name) {
        case TCP_MAXSEG: return 536;        /* TCP_MSS_DEFAULT */
        case TCP_KEEPIDLE: return KEEPALIVE_TIME_S;
        case TCP_KEEPINTVL: return KEEPALIVE_INTVL_S;
        case TCP_KEEPCNT: return KEEPALIVE_PROBES;
        case TCP_SYNCNT: return SYN_RETRIES;
        }
    }
    return 0;
}

/* Writes out[0..size) into the caller's room (as much as fits) and the
 * size written; 0 or -EFAULT. */
static long put_option(struct thread *t, uint64_t addr, uint64_t len_addr, int room, const void *out, int size)
{
    int n = room < size ? room : size;
    if (mem_write(t->tid, addr, out, (size_t)n) != 0 || mem_write(t->tid, len_addr, &n, sizeof n) != 0) return -EFAULT;
    return 0;
}

/* The options read back as more than an int: 0 or -errno if answered
 * here, 1 if not one of them. SO_COOKIE is the socket's place in the
 * machine's socket table (the host's counts every socket of the host). */
static long struct_option(struct thread *t, struct simsock *s, int level, int name, uint64_t addr, uint64_t len_addr,
                          int room)
{
    if (level == SOL_SOCKET && name == SO_PEERCRED) {       /* no peer process: Linux's "none" */
        struct ucred none = { 0, (uid_t)-1, (gid_t)-1 };
        return put_option(t, addr, len_addr, room, &none, sizeof none);
    }
    if (level == SOL_SOCKET && name == SO_COOKIE) {
        uint64_t cookie = (uint64_t)s->machine << 32 | (uint64_t)s->cookie;
        return put_option(t, addr, len_addr, room, &cookie, sizeof cookie);
    }
    if (level == SOL_SOCKET && name == SO_BINDTODEVICE) {
        const struct sockopt *o = netsim_opt(s, SOL_SOCKET, SO_BINDTODEVICE);
        size_t n = o && o->val[0] ? strlen((const char *)o->val) + 1 : 0;
        return put_option(t, addr, len_addr, room, o ? o->val : (const unsigned char *)"", (int)n);
    }
    if (((level == IPPROTO_IP && name == IP_MTU) || (level == IPPROTO_IPV6 && name == IPV6_MTU)) && !s->connected)
        return -ENOTCONN;
    if (level == IPPROTO_TCP && name == TCP_CONGESTION) {
        const struct sockopt *o = netsim_opt(s, IPPROTO_TCP, TCP_CONGESTION);
        char ca[CA_NAME_MAX] = "cubic";
        if (o) memcpy(ca, o->val, sizeof ca);
        return put_option(t, addr, len_addr, room, ca, sizeof ca);
    }
    if (level == IPPROTO_TCP && name == TCP_INFO) {
        /* The state, and zeros: what dsim's TCP has no counters for. The
         * size of 6.1's struct (the kernel a machine reports). */
        unsigned char info[TCP_INFO_SIZE] = { 0 };
        info[0] = s->listening ? 10 /* TCP_LISTEN */ : s->connected || s->conn ? 1 /* ESTABLISHED */ : 7 /* CLOSE */;
        return put_option(t, addr, len_addr, room, info, sizeof info);
    }
    return 1;
}

enum sys_action sys_getsockopt(struct world *w, struct thread *t)
{
    struct simsock *s = sock_of(w, t, (int)ARG0(t), NULL);
    if (!s) return own_timeout_get(w, t);
    int level = (int)ARG1(t), name = (int)ARG2(t);
    uint64_t addr = ARG3(t), len_addr = ARG4(t);
    if (!known_level(level)) return emulate(t, -ENOPROTOOPT);
    int room;
    if (mem_read(t->tid, len_addr, &room, sizeof room) != 0) return emulate(t, -EFAULT);
    if (room < 0) return emulate(t, -EINVAL);
    int known = option_known(s, level, name, false);
    if (known) return emulate(t, known);
    long r = struct_option(t, s, level, name, addr, len_addr, room);
    if (r != 1) return emulate(t, r);
    unsigned char val[16] = { 0 };
    int v, size = sizeof(int);
    const struct sockopt *o = netsim_opt(s, level, name);
    if (level == SOL_SOCKET && name == SO_TYPE) v = s->type;
    else if (level == SOL_SOCKET && name == SO_DOMAIN) v = s->family;
    else if (level == SOL_SOCKET && name == SO_PROTOCOL)
        v = s->protocol ? s->protocol : s->type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
    else if (level == SOL_SOCKET && name == SO_ACCEPTCONN) v = s->listening;
    else if (level == SOL_SOCKET && name == SO_ERROR) {
        v = s->so_error;
        s->so_error = 0;
    } else if (o) {
        memcpy(&v, o->val, sizeof v);
        size = o->len;
    } else v = opt_default(s, level, name, &size);
    if ((level == IPPROTO_IP && name == IP_TTL) || (level == IPPROTO_IPV6 && name == IPV6_UNICAST_HOPS))
        v = v == -1 ? DEFAULT_TTL : v;
    if (level == IPPROTO_TCP && name == TCP_DEFER_ACCEPT) v = retrans_to_secs(v);
    if (!o || size <= (int)sizeof v) memcpy(val, &v, sizeof v);
    else memcpy(val, o->val, sizeof val);
    /* The size written back is what was copied: the room, if smaller. An
     * IP option of 0-255 fits one byte (do_ip_getsockopt). */
    int out = room < size ? room : size;
    if (level == IPPROTO_IP && room > 0 && room < (int)sizeof v && v >= 0 && v <= 255) {
        val[0] = (unsigned char)v;
        out = 1;
    }
    if (mem_write(t->tid, addr, val, (size_t)out) != 0) return emulate(t, -EFAULT);
    if (mem_write(t->tid, len_addr, &out, sizeof out) != 0) return emulate(t, -EFAULT);
    return emulate(t, 0);
}
