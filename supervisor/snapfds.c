/* What a copy makes afresh at a warm start's point: unix socket pairs,
 * pipes, eventfds and the epoll sets that watch them (snapfds.h). Read
 * from /proc (the fds' flags, an eventfd's count, an epoll set's
 * watches), from dsim's own copy of a pipe (its bytes, its capacity) and
 * from the kernel's unix socket listing of the machine's network
 * namespace (sock_diag: each socket's peer, queued bytes and shutdown),
 * which nothing else shows. */
#include "supervisor/snapfds.h"
#include "supervisor/hostcaps.h"
#include "syscalls/sys.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

/* -1, and why not. */
__attribute__((format(printf, 3, 4))) static int refuse(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- the unix sockets of a network namespace ---- */

struct unix_sock {
    uint32_t ino, peer;
    int type, state;
    unsigned shutdown, queued;      /* queued: bytes to read, or sent and not yet read */
    /* A listener's: connections not yet accepted, its backlog; another's:
     * bytes to read, and what it sent not yet read (its write allocation). */
    unsigned rqueue, wqueue;
};

/* A netlink socket of the namespace netns (-1: dsim's own): made there,
 * used from here. */
static int diag_socket_in(int netns)
{
    if (netns < 0) return socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (self < 0) return -1;
    int nl = -1, e = 0;
    if (setns(netns, CLONE_NEWNET) == 0) {
        nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
        e = errno;
        if (setns(self, CLONE_NEWNET) != 0) {
            /* dsim's own calls would be in the machine's namespace. */
            fprintf(stderr, "dsim: cannot go back to its own network namespace: %s\n", strerror(errno));
            abort();
        }
    } else {
        e = errno;
    }
    close(self);
    errno = e;
    return nl;
}

static void unix_sock_attrs(struct unix_sock *s, const struct nlmsghdr *h)
{
    const struct unix_diag_msg *m = NLMSG_DATA(h);
    int left = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof *m);
    for (const struct rtattr *a = (const void *)(m + 1); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
        if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= 4) memcpy(&s->peer, RTA_DATA(a), 4);
        else if (a->rta_type == UNIX_DIAG_SHUTDOWN && RTA_PAYLOAD(a) >= 1) s->shutdown = *(const uint8_t *)RTA_DATA(a);
        else if (a->rta_type == UNIX_DIAG_RQLEN && RTA_PAYLOAD(a) >= sizeof(struct unix_diag_rqlen)) {
            struct unix_diag_rqlen q;
            memcpy(&q, RTA_DATA(a), sizeof q);
            s->queued = q.udiag_rqueue + q.udiag_wqueue;
            s->rqueue = q.udiag_rqueue;
            s->wqueue = q.udiag_wqueue;
        }
    }
}

/* Every unix socket of the namespace; 0 or -1. */
static int unix_socks(int netns, bool old_host, struct unix_sock **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (old_host) return errno = EPROTONOSUPPORT, -1;
    int nl = diag_socket_in(netns);
    if (nl < 0) return -1;
    struct { struct nlmsghdr nh; struct unix_diag_req r; } req = {
        .nh = { .nlmsg_len = sizeof req, .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
        .r = { .sdiag_family = AF_UNIX, .udiag_states = ~0u, .udiag_show = UDIAG_SHOW_PEER | UDIAG_SHOW_RQLEN },
    };
    int rc = send(nl, &req, sizeof req, 0) == (ssize_t)sizeof req ? 1 : -1;
    static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
    while (rc > 0) {
        ssize_t k = recv(nl, buf, sizeof buf, 0);
        if (k <= 0) { rc = -1; break; }
        int left = (int)k;
        for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
            if (h->nlmsg_type == NLMSG_DONE) { rc = 0; break; }
            if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct unix_diag_msg))) {
                rc = -1;
                break;
            }
            const struct unix_diag_msg *m = NLMSG_DATA(h);
            if (!(*out = realloc(*out, (*nout + 1) * sizeof **out))) abort();
            struct unix_sock *s = &(*out)[(*nout)++];
            *s = (struct unix_sock){ .ino = m->udiag_ino, .type = m->udiag_type, .state = m->udiag_state };
            unix_sock_attrs(s, h);
        }
    }
    close(nl);
    return rc;
}

static const struct unix_sock *unix_sock_of(const struct unix_sock *s, size_t n, uint64_t ino)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].ino == ino) return &s[i];
    return NULL;
}

int snap_unix_sock(int netns, uint64_t ino, struct snap_unix_info *out)
{
    bool host = true;
    char err[200];
    if (warm_fds_resolve(&host, err, sizeof err) != 0) return -1;
    struct unix_sock *socks = NULL;
    size_t n = 0;
    int rc = unix_socks(netns, !host, &socks, &n);
    const struct unix_sock *s = rc == 0 ? unix_sock_of(socks, n, ino) : NULL;
    if (s) *out = (struct snap_unix_info){ s->peer, s->type, !s->shutdown && !s->queued, s->shutdown };
    free(socks);
    /* A socket made by a connect lives in the connecting socket's network
     * namespace: a simulated connection's accepted end in dsim's, the relay
     * end of one a tracee made in the machine's. */
    return s ? 0 : netns >= 0 ? snap_unix_sock(-1, ino, out) : -1;
}

/* ---- the process's fds ---- */

int snap_fdinfo_flags(pid_t pid, int fd)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)pid, fd);
    FILE *f = fopen(path, "re");
    unsigned flags = 0;
    bool got = false;
    while (f && !got && fgets(line, sizeof line, f)) got = sscanf(line, "flags: %o", &flags) == 1;
    if (f) fclose(f);
    return got ? (int)flags : -1;
}

static int fd_flags(pid_t pid, int fd)
{
    int flags = snap_fdinfo_flags(pid, fd);
    return flags < 0 ? -1 : flags & (O_NONBLOCK | O_CLOEXEC);
}

static uint64_t fd_ino(pid_t pid, int fd)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
    return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* What /proc/PID/fd/FD links to ("" if nothing). */
static void fd_link(pid_t pid, int fd, char *link, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
    ssize_t n = readlink(path, link, len - 1);
    link[n > 0 ? n : 0] = 0;
}

bool snap_fd_afresh_kind(pid_t pid, int fd)
{
    char link[64];
    fd_link(pid, fd, link, sizeof link);
    return !strcmp(link, "anon_inode:[eventpoll]") || !strcmp(link, "anon_inode:[eventfd]") ||
           !strcmp(link, "anon_inode:[signalfd]") || !strncmp(link, "socket:[", 8) || !strncmp(link, "pipe:[", 6);
}

static bool is_epoll(pid_t pid, int fd)
{
    char link[64];
    fd_link(pid, fd, link, sizeof link);
    return !strcmp(link, "anon_inode:[eventpoll]");
}

static bool pair_end(const struct snap_fds *f, int fd)
{
    for (int i = 0; i < f->npairs; i++)
        if (f->pairs[i].fd[0] == fd || f->pairs[i].fd[1] == fd) return true;
    return false;
}

/* Whether the copy makes fd anew before its epoll sets: what they may watch. */
static bool made_anew(const struct snap_fds *f, int fd)
{
    for (int i = 0; i < f->neventfds; i++)
        if (f->eventfds[i].fd == fd) return true;
    for (int i = 0; i < f->nsignalfds; i++)
        if (f->signalfds[i].fd == fd) return true;
    for (int i = 0; i < f->ndgrams; i++)
        if (f->dgrams[i].fd == fd) return true;
    for (int i = 0; i < f->nsimsocks; i++)
        if (f->simsocks[i].fd == fd) return true;
    return pair_end(f, fd);
}

/* dsim's own copy of fd of pid (its open file, not a new one), or -1. */
static int copy_fd(pid_t pid, int fd)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) return -1;
    int copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
    close(pidfd);
    return copy;
}

/* The receive and send timeouts of the socket at fd of pid, as its kernel
 * keeps them: 0, or -1. */
static int read_timeouts(pid_t pid, int fd, struct timeval tv[2])
{
    int copy = copy_fd(pid, fd), rc = copy < 0 ? -1 : 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        socklen_t tl = sizeof tv[k];
        if (getsockopt(copy, SOL_SOCKET, k ? SO_SNDTIMEO : SO_RCVTIMEO, &tv[k], &tl) != 0) rc = -1;
    }
    if (copy >= 0) close(copy);
    return rc;
}

bool snap_sock_timeouts(pid_t pid, int fd)
{
    int copy = copy_fd(pid, fd);
    bool any = copy < 0;
    for (int k = 0; k < 2 && copy >= 0; k++) {
        struct timeval tv = { 0, 0 };
        socklen_t tl = sizeof tv;
        if (getsockopt(copy, SOL_SOCKET, k ? SO_SNDTIMEO : SO_RCVTIMEO, &tv, &tl) != 0 || tv.tv_sec || tv.tv_usec)
            any = true;
    }
    if (copy >= 0) close(copy);
    return any;
}

/* A pipe both of whose ends fd (one of them) and another fd of fds are,
 * empty: into *p; 0, or -1 and why not. */
static int read_pipe(pid_t pid, int fd, const int *fds, int n, struct snap_pair *p, char *why, size_t len)
{
    char link[64], other[64];
    fd_link(pid, fd, link, sizeof link);
    int ends[2] = { -1, -1 }, count = 0;
    for (int k = 0; k < n; k++) {
        fd_link(pid, fds[k], other, sizeof other);
        if (strcmp(other, link)) continue;
        count++;
        int fl = snap_fdinfo_flags(pid, fds[k]);
        if (fl >= 0 && (fl & O_ACCMODE) == O_RDONLY && ends[0] < 0) ends[0] = fds[k];
        else if (fl >= 0 && (fl & O_ACCMODE) == O_WRONLY && ends[1] < 0) ends[1] = fds[k];
    }
    if (count != 2 || ends[0] < 0 || ends[1] < 0)
        return refuse(why, len, "fd %d open (not a pipe both of whose ends it holds, once each)", fd);
    *p = (struct snap_pair){ .fd = { ends[0], ends[1] }, .flags = { fd_flags(pid, ends[0]), fd_flags(pid, ends[1]) } };
    int queued = snap_pipe_state(pid, ends[0], &p->pipe_size, p->bytes, &p->nbytes);
    if (queued != p->nbytes || p->pipe_size <= 0)
        return refuse(why, len, "fd %d: a pipe with bytes in it that a copy cannot write again (%d; up to %d)", fd,
                      queued, SNAP_PIPE_BYTES);
    return 0;
}

int snap_pipe_state(pid_t pid, int read_fd, int *size, char *bytes, int *nbytes)
{
    int copy = copy_fd(pid, read_fd), queued = -1;
    *size = -1;
    *nbytes = 0;
    if (copy < 0) return -1;
    if (ioctl(copy, FIONREAD, &queued) != 0) queued = -1;
    *size = fcntl(copy, F_GETPIPE_SZ);
    /* Its bytes, left where they are: tee'd into a pipe of dsim's. */
    int peek[2];
    if (queued > 0 && queued <= SNAP_PIPE_BYTES && pipe2(peek, O_CLOEXEC | O_NONBLOCK) == 0) {
        if (tee(copy, peek[1], (size_t)queued, SPLICE_F_NONBLOCK) == queued && read(peek[0], bytes, (size_t)queued) == queued)
            *nbytes = queued;
        close(peek[0]);
        close(peek[1]);
    }
    close(copy);
    return queued;
}

/* A unix datagram socket with no peer: idle, and unbound or autobound (a
 * copy cannot bind a name its template holds). 0, or -1 and why not. */
static int read_dgram(pid_t pid, int fd, const struct unix_sock *s, struct snap_dgram *d, char *why, size_t len)
{
    struct sockaddr_un a;
    socklen_t alen = sizeof a;
    int copy = copy_fd(pid, fd);
    bool named = copy < 0 || getsockname(copy, (struct sockaddr *)&a, &alen) != 0;
    if (copy >= 0) close(copy);
    /* Autobound: an abstract name of five hex digits (unix(7)). */
    bool autobound = !named && alen == offsetof(struct sockaddr_un, sun_path) + 6 && a.sun_path[0] == 0;
    if (!named && alen > offsetof(struct sockaddr_un, sun_path) && !autobound) named = true;
    if (named) return refuse(why, len, "fd %d: a unix datagram socket bound to a name", fd);
    if (s->shutdown || s->queued) return refuse(why, len, "fd %d: a unix datagram socket shut down or with bytes in it", fd);
    *d = (struct snap_dgram){ .fd = fd, .flags = fd_flags(pid, fd), .autobind = autobound, .ino = s->ino };
    if (autobound) memcpy(d->name, a.sun_path, sizeof d->name);
    if (read_timeouts(pid, fd, d->timeo) != 0) d->flags = -1;
    return d->flags < 0 ? refuse(why, len, "fd %d: its flags or timeouts could not be read", fd) : 0;
}

/* A simulated socket's kernel socket, idle (a listener, the connections
 * waiting in its backlog counted, which snapnet.c checks; a connected one,
 * its peer dsim's relay end, which snapnet.c checks, with nothing it wrote
 * still unread by the relay, and what the relay wrote to it that it has
 * not read counted, which snapnet.c finds in the relay's writes; anything
 * else with no peer, nothing queued and not shut down): 0, or -1 and why
 * not. */
static int read_simsock(pid_t pid, int fd, const struct unix_sock *s, struct snap_simsock *out, char *why, size_t len)
{
    bool listening = s->state == 10;      /* TCP_LISTEN, as unix_diag says */
    bool connected = s->peer && s->type == SOCK_STREAM;
    if (connected && s->wqueue != 0)
        return refuse(why, len, "fd %d: a simulated socket whose writes dsim had not yet taken at the point", fd);
    if (!listening && !connected && s->queued != 0)
        return refuse(why, len, "fd %d: a simulated socket with bytes not yet read at the point", fd);
    if (!connected && (s->shutdown || s->peer))
        return refuse(why, len, "fd %d: a simulated socket shut down or with a peer of its own", fd);
    *out = (struct snap_simsock){ .fd = fd, .flags = fd_flags(pid, fd), .type = s->type, .ino = s->ino,
                                  .listening = listening, .backlog = (int)s->wqueue, .waiting = listening ? (int)s->rqueue : 0,
                                  .connected = connected, .unread = connected ? s->rqueue : 0,
                                  .shutdown = s->shutdown, .seed_end = -1 };
    int copy = copy_fd(pid, fd);
    for (int k = 0; k < 2 && copy >= 0; k++) {
        socklen_t tl = sizeof out->timeo[k];
        if (getsockopt(copy, SOL_SOCKET, k ? SO_SNDTIMEO : SO_RCVTIMEO, &out->timeo[k], &tl) != 0) out->flags = -1;
    }
    if (copy >= 0) close(copy);
    return copy < 0 || out->flags < 0 ? refuse(why, len, "fd %d: its flags or timeouts could not be read", fd) : 0;
}

/* An eventfd's count and mode, from its fdinfo: 0, or -1 and why not. */
static int read_eventfd(pid_t pid, int fd, bool old_host, struct snap_eventfd *e, char *why, size_t len)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)pid, fd);
    FILE *in = fopen(path, "re");
    unsigned long long count = 0;
    int sem = -1;
    bool got_count = false;
    while (in && fgets(line, sizeof line, in)) {
        if (sscanf(line, "eventfd-count: %llx", &count) == 1) got_count = true;
        else if (!old_host) sscanf(line, "eventfd-semaphore: %d", &sem);
    }
    if (in) fclose(in);
    /* A kernel before 6.3 does not say whether it counts as a semaphore. */
    if (!got_count || sem < 0 || count > 0xffffffffULL)
        return refuse(why, len, "fd %d: an eventfd whose count or mode its fdinfo does not tell", fd);
    *e = (struct snap_eventfd){ fd, fd_flags(pid, fd), count, sem != 0, -1 };
    return 0;
}

/* A signalfd's mask, from its fdinfo: 0, or -1 and why not. */
static int read_signalfd(pid_t pid, int fd, struct snap_signalfd *sfd, char *why, size_t len)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)pid, fd);
    FILE *in = fopen(path, "re");
    unsigned long long mask = 0;
    bool got = false;
    while (in && !got && fgets(line, sizeof line, in)) got = sscanf(line, "sigmask: %llx", &mask) == 1;
    if (in) fclose(in);
    *sfd = (struct snap_signalfd){ fd, fd_flags(pid, fd), mask };
    if (!got) return refuse(why, len, "fd %d: a signalfd whose mask its fdinfo does not tell", fd);
    return sfd->flags < 0 ? refuse(why, len, "fd %d: its flags could not be read", fd) : 0;
}

/* An epoll set's watches, from its fdinfo: each of a pair's end or an
 * eventfd (by fd number and inode), level-triggered and not one-shot. 0,
 * or -1 and why. */
static int read_watches(pid_t pid, struct snap_epoll *e, const struct snap_fds *f, char *why, size_t len)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)pid, e->fd);
    FILE *in = fopen(path, "re");
    if (!in) return refuse(why, len, "fd %d: its fdinfo: %s", e->fd, strerror(errno));
    int rc = 0;
    while (!rc && fgets(line, sizeof line, in)) {
        int tfd;
        unsigned events;
        unsigned long long data, ino;
        if (sscanf(line, "tfd: %d events: %x data: %llx pos:%*d ino:%llx", &tfd, &events, &data, &ino) != 4) continue;
        if (!made_anew(f, tfd) || fd_ino(pid, tfd) != ino)
            rc = refuse(why, len, "fd %d: an epoll set watching fd %d, which its copies do not make anew", e->fd, tfd);
        else if (events & EPOLLWAKEUP)
            rc = refuse(why, len, "fd %d: a wakeup epoll watch of fd %d", e->fd, tfd);
        else {
            /* A one-shot watch's events are its armed ones (none once it
             * fired): added again so, it is armed or not as it was. */
            if (events & (EPOLLET | EPOLLONESHOT)) e->drain = true;
            if (!(e->watches = realloc(e->watches, (size_t)(e->nwatches + 1) * sizeof *e->watches))) abort();
            e->watches[e->nwatches++] = (struct snap_watch){ tfd, events, data };
        }
    }
    fclose(in);
    /* An edge taken before the point is not given again: in the copy, the
     * adding of each watch makes an edge of what is ready, which the copy
     * takes at once; so the template's set must have nothing to give (an
     * edge not yet taken would be lost). */
    if (!rc && e->drain && e->nwatches > SNAP_ET_WATCHES)
        rc = refuse(why, len, "fd %d: an epoll set of more than %d watches, one edge-triggered or one-shot", e->fd,
                    SNAP_ET_WATCHES);
    if (!rc && e->drain) {
        int copy = copy_fd(pid, e->fd);
        struct pollfd pf = { copy, POLLIN, 0 };
        if (copy < 0 || poll(&pf, 1, 0) != 0)
            rc = refuse(why, len, "fd %d: an epoll set with an edge-triggered or one-shot watch and events to give at the point",
                        e->fd);
        if (copy >= 0) close(copy);
    }
    return rc;
}

static bool simulated(const uint64_t *sim, int nsim, uint64_t ino)
{
    for (int i = 0; i < nsim; i++)
        if (sim[i] == ino) return true;
    return false;
}

int snap_fds_read(pid_t pid, int netns, const int *fds, int n, const uint64_t *sim, int nsim, struct snap_fds *out,
                  char *why, size_t len)
{
    memset(out, 0, sizeof *out);
    bool host;
    if (warm_fds_resolve(&host, why, len) != 0) return -1;
    struct unix_sock *socks = NULL, *dsim_socks = NULL;
    size_t nsocks = 0, ndsim = 0;
    bool listed_socks = false;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {        /* the pairs first: the watches name them */
        int fd = fds[i];
        char link[64];
        fd_link(pid, fd, link, sizeof link);
        if (!strcmp(link, "anon_inode:[eventpoll]") || pair_end(out, fd)) continue;
        if (!strcmp(link, "anon_inode:[eventfd]")) {
            if (!(out->eventfds = realloc(out->eventfds, (size_t)(out->neventfds + 1) * sizeof *out->eventfds))) abort();
            rc = read_eventfd(pid, fd, !host, &out->eventfds[out->neventfds++], why, len);
            continue;
        }
        if (!strcmp(link, "anon_inode:[signalfd]")) {
            if (!(out->signalfds = realloc(out->signalfds, (size_t)(out->nsignalfds + 1) * sizeof *out->signalfds)))
                abort();
            rc = read_signalfd(pid, fd, &out->signalfds[out->nsignalfds++], why, len);
            continue;
        }
        if (!strncmp(link, "pipe:[", 6)) {
            if (!(out->pairs = realloc(out->pairs, (size_t)(out->npairs + 1) * sizeof *out->pairs))) abort();
            rc = read_pipe(pid, fd, fds, n, &out->pairs[out->npairs++], why, len);
            continue;
        }
        if (!listed_socks && (listed_socks = true, unix_socks(netns, !host, &socks, &nsocks) != 0)) {
            rc = refuse(why, len, "the machine's unix sockets could not be listed: %s", strerror(errno));
            break;
        }
        uint64_t ino = fd_ino(pid, fd);
        const struct unix_sock *s = unix_sock_of(socks, nsocks, ino), *p = NULL;
        if (simulated(sim, nsim, ino)) {
            /* An accepted simulated connection's socket is dsim's network
             * namespace's (snap_unix_sock). */
            if (!s && !dsim_socks && unix_socks(-1, !host, &dsim_socks, &ndsim) != 0) {
                rc = refuse(why, len, "dsim's unix sockets could not be listed: %s", strerror(errno));
                break;
            }
            if (!s) s = unix_sock_of(dsim_socks, ndsim, ino);
            if (!s) {
                rc = refuse(why, len, "fd %d: a simulated socket the kernel does not list", fd);
                break;
            }
            if (!(out->simsocks = realloc(out->simsocks, (size_t)(out->nsimsocks + 1) * sizeof *out->simsocks))) abort();
            rc = read_simsock(pid, fd, s, &out->simsocks[out->nsimsocks++], why, len);
            continue;
        }
        int peer_fd = -1;
        if (s && s->peer)
            for (int k = 0; k < n && peer_fd < 0; k++)
                if (fds[k] != fd && fd_ino(pid, fds[k]) == s->peer) peer_fd = fds[k];
        if (peer_fd >= 0) p = unix_sock_of(socks, nsocks, s->peer);
        if (s && !s->peer && s->type == SOCK_DGRAM) {
            if (!(out->dgrams = realloc(out->dgrams, (size_t)(out->ndgrams + 1) * sizeof *out->dgrams))) abort();
            rc = read_dgram(pid, fd, s, &out->dgrams[out->ndgrams++], why, len);
        } else if (!s || !p || p->peer != s->ino) {
            rc = refuse(why, len, "fd %d open (not a socket pair both of whose ends it holds)", fd);
        } else if (s->shutdown || p->shutdown || s->queued || p->queued) {
            rc = refuse(why, len, "fd %d: a socket pair shut down or with bytes in it", fd);
        } else {
            if (!(out->pairs = realloc(out->pairs, (size_t)(out->npairs + 1) * sizeof *out->pairs))) abort();
            struct snap_pair *pr = &out->pairs[out->npairs++];
            *pr = (struct snap_pair){ .fd = { fd, peer_fd }, .flags = { fd_flags(pid, fd), fd_flags(pid, peer_fd) },
                                      .type = s->type, .ino = { s->ino, p->ino } };
            if (read_timeouts(pid, fd, pr->timeo[0]) != 0 || read_timeouts(pid, peer_fd, pr->timeo[1]) != 0)
                pr->flags[0] = -1;
        }
    }
    for (int i = 0; i < out->npairs && !rc; i++)
        if (out->pairs[i].flags[0] < 0 || out->pairs[i].flags[1] < 0)
            rc = refuse(why, len, "fd %d: its pair's flags or timeouts could not be read", out->pairs[i].fd[0]);
    for (int i = 0; i < out->neventfds && !rc; i++)
        if (out->eventfds[i].flags < 0) rc = refuse(why, len, "fd %d: its flags could not be read", out->eventfds[i].fd);
    for (int i = 0; i < n && !rc; i++) {
        if (!is_epoll(pid, fds[i])) continue;
        if (!(out->epolls = realloc(out->epolls, (size_t)(out->nepolls + 1) * sizeof *out->epolls))) abort();
        struct snap_epoll *e = &out->epolls[out->nepolls++];
        *e = (struct snap_epoll){ .fd = fds[i], .flags = fd_flags(pid, fds[i]) };
        if (e->flags < 0) rc = refuse(why, len, "fd %d: its flags could not be read", e->fd);
        else rc = read_watches(pid, e, out, why, len);
    }
    free(socks);
    free(dsim_socks);
    if (rc) snap_fds_free(out);
    return rc;
}

void snap_unread_free(struct snap_unread *u)
{
    free(u->bytes);
    free(u->sizes);
    memset(u, 0, sizeof *u);
}

void snap_fds_free(struct snap_fds *f)
{
    for (int i = 0; i < f->nepolls; i++) free(f->epolls[i].watches);
    free(f->epolls);
    free(f->dgrams);
    for (int i = 0; i < f->nsimsocks; i++) {
        snap_unread_free(&f->simsocks[i].held);
        for (int k = 0; k < SNAP_BACKLOG; k++) snap_unread_free(&f->simsocks[i].backlog_held[k]);
    }
    free(f->simsocks);
    free(f->pairs);
    free(f->eventfds);
    free(f->signalfds);
    memset(f, 0, sizeof *f);
}

bool snap_fds_host_tells(void)
{
    bool tells = false;
    int efd = eventfd(0, EFD_CLOEXEC), sv[2] = { -1, -1 };
    if (efd >= 0) {
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/self/fdinfo/%d", efd);
        FILE *in = fopen(path, "re");
        while (in && !tells && fgets(line, sizeof line, in)) tells = !strncmp(line, "eventfd-semaphore:", 18);
        if (in) fclose(in);
        close(efd);
    }
    struct unix_sock *socks = NULL;
    size_t n = 0;
    if (tells && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0 && unix_socks(-1, false, &socks, &n) == 0) {
        struct stat a, b;
        const struct unix_sock *s = fstat(sv[0], &a) == 0 && fstat(sv[1], &b) == 0 ? unix_sock_of(socks, n, a.st_ino) : NULL;
        tells = s && s->peer == b.st_ino;
    } else {
        tells = false;
    }
    free(socks);
    if (sv[0] >= 0) close(sv[0]), close(sv[1]);
    return tells;
}

/* One socket of copy (its fd at), made anew: tv on its kernel socket, and
 * dsim's kept timeouts of the template's (inode ino), if any, under the
 * copy's inode. */
static int give_timeouts(struct world *w, int pidfd, int at, uint64_t ino, const struct timeval tv[2])
{
    const struct sock_timeouts *kept = sock_timeouts_of(w, (ino_t)ino, false);
    if (!kept && !tv[0].tv_sec && !tv[0].tv_usec && !tv[1].tv_sec && !tv[1].tv_usec) return 0;
    int fd = (int)syscall(SYS_pidfd_getfd, pidfd, at, 0), rc = fd < 0 ? -1 : 0;
    struct stat st;
    for (int k = 0; k < 2 && rc == 0; k++)
        if (setsockopt(fd, SOL_SOCKET, k ? SO_SNDTIMEO : SO_RCVTIMEO, &tv[k], sizeof tv[k]) != 0) rc = -1;
    if (rc == 0 && kept) {
        struct timeval both[2] = { kept->tv[0], kept->tv[1] };     /* the list may move as it grows */
        if (fstat(fd, &st) != 0) rc = -1;
        else memcpy(sock_timeouts_of(w, st.st_ino, true)->tv, both, sizeof both);
    }
    if (fd >= 0) close(fd);
    return rc;
}

int snap_fds_timeouts(struct world *w, pid_t copy, const struct snap_fds *f)
{
    int pidfd = (int)syscall(SYS_pidfd_open, copy, 0), rc = pidfd < 0 ? -1 : 0;
    for (int i = 0; i < f->npairs && rc == 0; i++)
        for (int e = 0; e < 2 && rc == 0 && f->pairs[i].type; e++)
            rc = give_timeouts(w, pidfd, f->pairs[i].fd[e], f->pairs[i].ino[e], f->pairs[i].timeo[e]);
    for (int i = 0; i < f->ndgrams && rc == 0; i++)
        if (!f->dgrams[i].from_vpid) rc = give_timeouts(w, pidfd, f->dgrams[i].fd, f->dgrams[i].ino, f->dgrams[i].timeo);
    if (pidfd >= 0) close(pidfd);
    return rc;
}
