/* The simulated network's sockets at a warm start's point (snapnet.h). */
#include "supervisor/snapnet.h"
#include "supervisor/snapfds.h"
#include "net/sim/netsim.h"
#include "world/world.h"
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

int snap_net_inos(const struct world *w, pid_t pid, uint64_t *out, int max, char *why, size_t len)
{
    char path[320], link[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (!d) {
        snprintf(why, len, "cannot list its fds: %s", strerror(errno));
        return -1;
    }
    int n = 0, rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/%d/fd/%s", (int)pid, e->d_name);
        ssize_t k = readlink(path, link, sizeof link - 1);
        unsigned long long ino;
        link[k > 0 ? k : 0] = 0;
        if (sscanf(link, "socket:[%llu]", &ino) != 1) continue;
        /* The simulation's own table: a seed's supervisor, a fork of the
         * worker, reads it as it stood at the point. */
        const struct simsock *s = netsim_lookup((struct world *)w, (ino_t)ino);
        if (!s) continue;
        const char *no = atoi(e->d_name) <= 2 ? "a simulated socket at a standard fd" : netsim_sock_still(s);
        if (no) {
            snprintf(why, len, "fd %s: %s at the point", e->d_name, no);
            rc = -1;
        } else if (n == max) {
            snprintf(why, len, "more than %d simulated sockets", max);
            rc = -1;
        } else {
            out[n++] = ino;
        }
    }
    closedir(d);
    return rc ? -1 : n;
}

/* The writes of the relay that connected socket x (fd x->fd of pid) holds
 * unread, and their bytes, peeked: 0, or -1. */
static int held_writes(struct world *w, pid_t pid, struct snap_simsock *x)
{
    struct snap_unread *u = &x->held;
    const struct simsock *s = netsim_lookup(w, (ino_t)x->ino);
    if (!s || !(u->sizes = malloc(NETSIM_WRITES_KEPT * sizeof *u->sizes)) || !(u->bytes = malloc(x->unread))) return -1;
    u->nsizes = netsim_unread_writes(s, x->unread, u->sizes, NETSIM_WRITES_KEPT, &u->skip);
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    int fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, x->fd, 0);
    ssize_t n = fd < 0 ? -1 : recv(fd, u->bytes, x->unread, MSG_PEEK | MSG_DONTWAIT);
    if (fd >= 0) close(fd);
    if (pidfd >= 0) close(pidfd);
    u->nbytes = n > 0 ? (size_t)n : 0;
    return u->nsizes > 0 && n == (ssize_t)x->unread ? 0 : -1;
}

/* What the relay wrote into the k-th connection in listener x's backlog. */
static int backlog_writes(const struct simsock *l, size_t k, struct snap_unread *u)
{
    const char *bytes;
    if (!(u->sizes = malloc(NETSIM_WRITES_KEPT * sizeof *u->sizes))) return -1;
    u->nsizes = netsim_backlog_writes(l, k, &bytes, &u->nbytes, u->sizes, NETSIM_WRITES_KEPT, &u->shut);
    if (u->nsizes < 0 || (u->nbytes && !(u->bytes = malloc(u->nbytes)))) return -1;
    if (u->nbytes) memcpy(u->bytes, bytes, u->nbytes);
    return 0;
}

int snap_net_check(struct world *w, pid_t pid, int netns, struct snap_fds *f, char *why, size_t len)
{
    for (int i = 0; i < f->nsimsocks; i++) {
        struct snap_simsock *x = &f->simsocks[i];
        const struct simsock *l = x->listening ? netsim_lookup(w, (ino_t)x->ino) : NULL;
        if (l && netsim_backlog(l) > SNAP_BACKLOG) {
            snprintf(why, len, "fd %d: more than %d connections in a simulated listener's backlog", x->fd, SNAP_BACKLOG);
            return -1;
        }
        if (x->listening && (!l || netsim_backlog(l) != (size_t)x->waiting)) {
            snprintf(why, len, "fd %d: a simulated listener whose backlog is not the simulation's", x->fd);
            return -1;
        }
        for (size_t k = 0; l && k < netsim_backlog(l); k++)
            if (backlog_writes(l, k, &x->backlog_held[k]) != 0) {
                snprintf(why, len, "fd %d: a connection in a simulated listener's backlog whose bytes dsim did not keep",
                         x->fd);
                return -1;
            }
        if (!x->connected) continue;
        if (x->unread && held_writes(w, pid, x) != 0) {
            snprintf(why, len, "fd %d: a simulated socket with %zu bytes unread in writes dsim did not keep", x->fd,
                     x->unread);
            return -1;
        }
        const struct simsock *s = netsim_lookup(w, (ino_t)x->ino);
        int end = s ? netsim_relay_end(s) : -1;
        struct stat st;
        struct snap_unix_info u;
        if (end < 0 || fstat(end, &st) != 0 || snap_unix_sock(netns, st.st_ino, &u) != 0 || u.peer != x->ino) {
            snprintf(why, len, "fd %d: a simulated socket connected in the kernel, not to the relay", x->fd);
            return -1;
        }
        x->end_shutdown = u.shutdown;
    }
    return 0;
}

/* The relay end of s, whose socket was closed: hung up (its peer gone both
 * ways), what it holds to read peeked into x. 0, or -1. */
static int closed_end(const struct simsock *s, struct snap_closed *x)
{
    int end = netsim_relay_end(s), queued = 0;
    struct pollfd p = { end, POLLIN, 0 };
    if (end < 0 || poll(&p, 1, 0) != 1 || !(p.revents & POLLHUP) || ioctl(end, FIONREAD, &queued) != 0 || queued < 0)
        return -1;
    x->nbytes = (size_t)queued;
    if (queued && (!(x->bytes = malloc((size_t)queued)) || recv(end, x->bytes, (size_t)queued, MSG_PEEK | MSG_DONTWAIT) != queued))
        return -1;
    return 0;
}

int snap_net_copied(struct world *w, const struct snap_fds *const *fs, int nf, struct snap_closed_ends *closed,
                    char *why, size_t len)
{
    uint64_t open[256];
    size_t n = netsim_connected(w, open, 256);
    if (n == 256) {
        snprintf(why, len, "more than 255 simulated connection ends open");
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        bool held = false;
        for (int j = 0; j < nf && !held; j++)
            for (int i = 0; i < fs[j]->nsimsocks && !held; i++) held = fs[j]->simsocks[i].ino == open[k];
        if (held) continue;
        if (!(closed->v = realloc(closed->v, (size_t)(closed->n + 1) * sizeof *closed->v))) abort();
        struct snap_closed *x = &closed->v[closed->n++];
        *x = (struct snap_closed){ .ino = open[k], .seed_end = -1 };
        const struct simsock *s = netsim_lookup(w, (ino_t)open[k]);
        if (!s || closed_end(s, x) != 0) {
            snprintf(why, len, "a simulated connection whose socket no process copied holds past fd 2");
            return -1;
        }
    }
    return 0;
}

int snap_net_closed_make(struct snap_closed_ends *c)
{
    for (int i = 0; i < c->n; i++) {
        struct snap_closed *x = &c->v[i];
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) return -1;
        netsim_pin_sndbuf(sv[0]);
        netsim_pin_sndbuf(sv[1]);
        x->seed_end = sv[0];
        size_t at = 0;
        while (at < x->nbytes) {
            ssize_t k = send(sv[1], x->bytes + at, x->nbytes - at < 65536 ? x->nbytes - at : 65536, MSG_NOSIGNAL);
            if (k <= 0) break;
            at += (size_t)k;
        }
        close(sv[1]);
        if (at < x->nbytes) {
            errno = ENOBUFS;
            return -1;
        }
    }
    return 0;
}

int snap_net_closed_take(struct world *w, struct snap_closed_ends *c)
{
    int rc = 0;
    for (int i = 0; i < c->n; i++) {
        struct simsock *s = netsim_lookup(w, (ino_t)c->v[i].ino);
        if (!s || c->v[i].seed_end < 0 || netsim_relay_end_take(s, c->v[i].seed_end) != 0) rc = -1;
        c->v[i].seed_end = -1;
    }
    return rc;
}

void snap_net_closed_done(struct snap_closed_ends *c)
{
    for (int i = 0; i < c->n; i++) {
        if (c->v[i].seed_end >= 0) close(c->v[i].seed_end);
        c->v[i].seed_end = -1;
    }
}

void snap_net_closed_free(struct snap_closed_ends *c)
{
    snap_net_closed_done(c);
    for (int i = 0; i < c->n; i++) free(c->v[i].bytes);
    free(c->v);
    c->v = NULL;
    c->n = 0;
}

/* The relay's writes u again, into `end`, each one send (the part of the
 * oldest already read as zeros), then that part read off through `reader`
 * (the other end, dsim's copy of it), and its FIN if it followed: 0, or -1. */
static int write_again(int end, int reader, const struct snap_unread *u)
{
    size_t at = 0;
    int rc = 0;
    for (int i = 0; i < u->nsizes && rc == 0; i++) {
        size_t n = u->sizes[i], fill = i == 0 ? u->skip : 0;
        char *buf = calloc(1, n ? n : 1);
        if (!buf || n < fill || at + (n - fill) > u->nbytes) rc = -1;
        else memcpy(buf + fill, u->bytes + at, n - fill);
        if (rc == 0 && send(end, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)n) rc = -1;
        at += n - fill;
        free(buf);
    }
    if (rc == 0 && at != u->nbytes) rc = -1;
    if (rc == 0 && u->skip) {
        char *buf = malloc(u->skip);
        if (!buf || recv(reader, buf, u->skip, MSG_DONTWAIT) != (ssize_t)u->skip) rc = -1;
        free(buf);
    }
    if (rc == 0 && u->shut && shutdown(end, SHUT_WR) != 0) rc = -1;
    return rc;
}

/* The copy's connected socket `fd` (dsim's copy of it) joined to a new
 * relay end of dsim's through listener l at a, holding what the template's
 * held to read, each shut down as at the point: the end's fd, or -1. */
static int join_relay(int fd, int l, const struct sockaddr_un *a, const struct snap_simsock *x)
{
    if (connect(fd, (const struct sockaddr *)a, sizeof *a) != 0) return -1;
    int end = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (end < 0) return -1;
    netsim_pin_sndbuf(end);
    if (write_again(end, fd, &x->held) != 0 || ((x->shutdown & 2) && shutdown(fd, SHUT_WR) != 0) ||
        ((x->end_shutdown & 2) && shutdown(end, SHUT_WR) != 0)) {
        close(end);
        return -1;
    }
    return end;
}

/* The copy's listener at a gets a connection from a new relay end of
 * dsim's for each waiting in the template's backlog, in its order, with
 * what the relay wrote into it. 0 or -1. */
static int fill_backlog(const struct simsock *s, const struct sockaddr_un *a, struct snap_simsock *x)
{
    for (size_t k = 0; k < netsim_backlog(s); k++) {
        int end = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (end < 0) return -1;
        netsim_pin_sndbuf(end);
        x->backlog_end[x->nbacklog++] = end;
        if (connect(end, (const struct sockaddr *)a, sizeof *a) != 0 || write_again(end, -1, &x->backlog_held[k]) != 0)
            return -1;
    }
    return 0;
}

int snap_net_settle(struct world *w, pid_t copy, struct snap_fds *f, char *why, size_t len)
{
    if (!f->nsimsocks) return 0;
    int pidfd = (int)syscall(SYS_pidfd_open, copy, 0), rc = pidfd < 0 ? -1 : 0, l = -1;
    struct sockaddr_un la;
    for (int i = 0; i < f->nsimsocks && rc == 0; i++) {
        struct snap_simsock *x = &f->simsocks[i];
        if (x->from_vpid) continue;     /* settled as its first holder's */
        const struct simsock *s = netsim_lookup(w, (ino_t)x->ino);
        int fd = (int)syscall(SYS_pidfd_getfd, pidfd, x->fd, 0);
        struct stat st;
        if (!s || fd < 0 || fstat(fd, &st) != 0) {
            rc = -1;
        } else {
            x->seed_ino = st.st_ino;
            netsim_pin_sndbuf(fd);
            struct sockaddr_un a = { .sun_family = AF_UNIX };
            /* The template's socket stays bound to the path, unlinked: the
             * simulation's connections and datagrams now reach the copy's. */
            if (s->path && snprintf(a.sun_path, sizeof a.sun_path, "%s", s->path) > 0 &&
                ((unlink(s->path) != 0 && errno != ENOENT) || bind(fd, (struct sockaddr *)&a, sizeof a) != 0))
                rc = -1;
            if (rc == 0 && x->listening && listen(fd, x->backlog) != 0) rc = -1;
            if (rc == 0 && x->listening) rc = fill_backlog(s, &a, x);
            if (rc == 0 && x->connected && l < 0 && (l = netsim_listen_at(w, "seed-relay", &la)) < 0) rc = -1;
            if (rc == 0 && x->connected && (x->seed_end = join_relay(fd, l, &la, x)) < 0) rc = -1;
            for (int k = 0; k < 2 && rc == 0; k++)
                if ((x->timeo[k].tv_sec || x->timeo[k].tv_usec) &&
                    setsockopt(fd, SOL_SOCKET, k ? SO_SNDTIMEO : SO_RCVTIMEO, &x->timeo[k], sizeof x->timeo[k]) != 0)
                    rc = -1;
        }
        if (rc != 0) snprintf(why, len, "its copy's simulated socket at fd %d could not be made as it was: %s", x->fd,
                              strerror(errno));
        if (fd >= 0) close(fd);
    }
    if (pidfd >= 0) close(pidfd);
    else snprintf(why, len, "pidfd_open of its copy: %s", strerror(errno));
    if (l >= 0) {
        unlink(la.sun_path);
        close(l);
    }
    return rc;
}

void snap_net_seed_done(struct snap_fds *f)
{
    for (int i = 0; i < f->nsimsocks; i++) {
        struct snap_simsock *x = &f->simsocks[i];
        if (x->seed_end >= 0) close(x->seed_end);
        x->seed_end = -1;
        for (int k = 0; k < x->nbacklog; k++) close(x->backlog_end[k]);
        x->nbacklog = 0;
    }
}

int snap_net_rekey(struct world *w, struct snap_fds *f)
{
    int rc = 0;
    for (int i = 0; i < f->nsimsocks; i++) {
        struct snap_simsock *x = &f->simsocks[i];
        struct simsock *s = x->from_vpid ? NULL : netsim_lookup(w, (ino_t)x->ino);
        if (!s) continue;
        s->ino = (ino_t)x->seed_ino;
        if (x->seed_end >= 0 && netsim_relay_end_take(s, x->seed_end) != 0) rc = -1;
        x->seed_end = -1;
        for (int k = 0; k < x->nbacklog; k++)
            if (netsim_backlog_take(s, (size_t)k, x->backlog_end[k]) != 0) rc = -1;
        x->nbacklog = 0;
    }
    return rc;
}

void snap_net_clear(const struct world *w)
{
    char dir[sizeof w->run_dir + 8];
    snprintf(dir, sizeof dir, "%s/net", w->run_dir);
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}
