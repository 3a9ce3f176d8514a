/* The simulated network's sockets at a warm start's point (snapnet.h). */
#include "supervisor/snapnet.h"
#include "supervisor/snapfds.h"
#include "net/sim/netsim.h"
#include "world/world.h"
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int snap_net_check(struct world *w, int netns, struct snap_fds *f, char *why, size_t len)
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
        if (!x->connected) continue;
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

int snap_net_copied(struct world *w, const struct snap_fds *const *fs, int nf, char *why, size_t len)
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
        if (!held) {
            snprintf(why, len, "a simulated connection whose socket no process copied holds past fd 2");
            return -1;
        }
    }
    return 0;
}

/* The copy's connected socket `fd` (dsim's copy of it) joined to a new
 * relay end of dsim's through listener l at a, each shut down as at the
 * point: the end's fd, or -1. */
static int join_relay(int fd, int l, const struct sockaddr_un *a, const struct snap_simsock *x)
{
    if (connect(fd, (const struct sockaddr *)a, sizeof *a) != 0) return -1;
    int end = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (end < 0) return -1;
    if (((x->shutdown & 2) && shutdown(fd, SHUT_WR) != 0) || ((x->end_shutdown & 2) && shutdown(end, SHUT_WR) != 0)) {
        close(end);
        return -1;
    }
    return end;
}

/* The copy's listener at a gets a connection from a new relay end of
 * dsim's for each waiting in the template's backlog, in its order. 0 or -1. */
static int fill_backlog(const struct simsock *s, const struct sockaddr_un *a, struct snap_simsock *x)
{
    for (size_t k = 0; k < netsim_backlog(s); k++) {
        int end = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (end < 0) return -1;
        x->backlog_end[x->nbacklog++] = end;
        if (connect(end, (const struct sockaddr *)a, sizeof *a) != 0) return -1;
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
        const struct simsock *s = netsim_lookup(w, (ino_t)x->ino);
        int fd = (int)syscall(SYS_pidfd_getfd, pidfd, x->fd, 0);
        struct stat st;
        if (!s || fd < 0 || fstat(fd, &st) != 0) {
            rc = -1;
        } else {
            x->seed_ino = st.st_ino;
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
        struct simsock *s = netsim_lookup(w, (ino_t)x->ino);
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
