/* Pipes between the processes of a machine at a warm start's point
 * (snappipes.h). */
#include "supervisor/snappipes.h"
#include "supervisor/snapfds.h"
#include "supervisor/hostcaps.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "world/tracer.h"
#include <unistd.h>

static struct snap_pipe *pipe_of(struct snap_pipes *s, uint64_t ino)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i].ino == ino) return &s->v[i];
    if (!(s->v = realloc(s->v, (size_t)(s->n + 1) * sizeof *s->v))) abort();
    struct snap_pipe *p = &s->v[s->n++];
    memset(p, 0, sizeof *p);
    p->ino = ino;
    p->nonblock[0] = p->nonblock[1] = -1;
    return p;
}

/* Which end of a unix socket pair the socket ino is (its pair keyed by
 * the lower inode of the two): 0 or 1, or -1 if it is no pair's end. */
static int pair_end(int netns, uint64_t ino, struct snap_pipes *all, struct snap_pipe **pair)
{
    struct snap_unix_info u;
    if (netns < 0 || snap_unix_sock(netns, ino, &u) != 0 || !u.peer) return -1;
    uint64_t key = ino < u.peer ? ino : u.peer;
    *pair = pipe_of(all, key);
    (*pair)->type = u.type;
    if (!u.idle) (*pair)->busy = true;
    return ino == key ? 0 : 1;
}

/* Every pipe fd and unix socket pair fd of every process, by pipe or
 * pair. -1 if an fd's flags cannot be read. */
static int list_pipes(const pid_t *pids, int n, struct snap_pipes *all)
{
    char nspath[64];
    snprintf(nspath, sizeof nspath, "/proc/%d/ns/net", (int)pids[0]);
    int netns = open(nspath, O_RDONLY | O_CLOEXEC), rc = 0;
    for (int k = 0; k < n && !rc; k++) {
        char path[64], link[64];
        snprintf(path, sizeof path, "/proc/%d/fd", (int)pids[k]);
        DIR *d = opendir(path);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            int fd = atoi(e->d_name);
            unsigned long long ino;
            snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pids[k], fd);
            ssize_t len = readlink(path, link, sizeof link - 1);
            if (len <= 0) continue;
            link[len] = 0;
            bool is_pipe = sscanf(link, "pipe:[%llu]", &ino) == 1;
            if (!is_pipe && sscanf(link, "socket:[%llu]", &ino) != 1) continue;
            int fl = snap_fdinfo_flags(pids[k], fd);
            if (fl < 0) {
                rc = -1;
                break;
            }
            struct snap_pipe *p = NULL;
            int end = is_pipe ? (fl & O_ACCMODE) == O_WRONLY : pair_end(netns, ino, all, &p);
            if (end < 0) continue;          /* no pair's: the process's own fds refuse it */
            if (is_pipe) p = pipe_of(all, ino);
            if (!(p->fds[end] = realloc(p->fds[end], (size_t)(p->nfds[end] + 1) * sizeof **p->fds))) abort();
            p->fds[end][p->nfds[end]++] = (struct snap_pipe_fd){ k, fd, fl & O_CLOEXEC };
            if (p->nonblock[end] < 0) p->nonblock[end] = fl & O_NONBLOCK;
        }
        if (d) closedir(d);
    }
    if (netns >= 0) close(netns);
    return rc;
}

/* Whether one process holds each end of p once: its own (snapfds.c). */
static bool own_pipe(const struct snap_pipe *p)
{
    return p->nfds[0] == 1 && p->nfds[1] == 1 && p->fds[0][0].proc == p->fds[1][0].proc;
}

static void pipe_free(struct snap_pipe *p)
{
    free(p->fds[0]);
    free(p->fds[1]);
}

int snap_pipes_read(const pid_t *pids, int n, struct snap_pipes *out, char *why, size_t len)
{
    memset(out, 0, sizeof *out);
    struct snap_pipes all = { 0 };
    if (list_pipes(pids, n, &all) != 0) {
        snprintf(why, len, "a pipe's flags could not be read");
        snap_pipes_free(&all);
        return -1;
    }
    bool host = true;
    char err[200];
    bool old_host = warm_fds_resolve(&host, err, sizeof err) != 0 || !host;
    int rc = 0;
    for (int i = 0; i < all.n; i++) {
        struct snap_pipe *p = &all.v[i];
        if (rc || own_pipe(p)) {
            pipe_free(p);
            continue;
        }
        if (p->type) {              /* a socket is one open file; a pair must be idle */
            if (p->busy || !p->nfds[0] || !p->nfds[1]) {
                snprintf(why, len, p->busy ? "fd %d: a socket pair between processes, shut down or with bytes in it"
                                           : "fd %d: a socket whose peer no process of the machine holds",
                         p->nfds[0] ? p->fds[0][0].fd : p->fds[1][0].fd);
                rc = -1;
                pipe_free(p);
            } else if (snap_sock_timeouts(pids[p->fds[0][0].proc], p->fds[0][0].fd) ||
                       snap_sock_timeouts(pids[p->fds[1][0].proc], p->fds[1][0].fd)) {
                snprintf(why, len, "fd %d: a unix socket with a receive or send timeout", p->fds[0][0].fd);
                rc = -1;
                pipe_free(p);
            } else {
                if (!(out->v = realloc(out->v, (size_t)(out->n + 1) * sizeof *out->v))) abort();
                out->v[out->n++] = *p;
            }
            continue;
        }
        /* Each end one open file in every process that holds it. */
        for (int e = 0; e < 2 && !rc; e++)
            for (int k = 1; k < p->nfds[e] && !rc; k++) {
                const struct snap_pipe_fd *a = &p->fds[e][0], *b = &p->fds[e][k];
                long same = old_host ? -1 : syscall(SYS_kcmp, pids[a->proc], pids[b->proc], KCMP_FILE, a->fd, b->fd);
                if (same != 0) {
                    snprintf(why, len, same < 0 ? "a pipe between processes, and no kcmp here to tell its ends apart"
                                                : "fd %d: a pipe's end that is two open files", b->fd);
                    rc = -1;
                }
            }
        const struct snap_pipe_fd *any = p->nfds[0] ? &p->fds[0][0] : &p->fds[1][0];
        int queued = rc ? 0 : snap_pipe_state(pids[any->proc], any->fd, &p->size, p->bytes, &p->nbytes);
        if (!rc && (queued != p->nbytes || p->size <= 0)) {
            snprintf(why, len, "fd %d: a pipe between processes with bytes in it that a copy cannot write again (%d; up to %d)",
                     any->fd, queued, SNAP_PIPE_BYTES);
            rc = -1;
        }
        if (rc) {
            pipe_free(p);
            continue;
        }
        if (!(out->v = realloc(out->v, (size_t)(out->n + 1) * sizeof *out->v))) abort();
        out->v[out->n++] = *p;
    }
    free(all.v);
    if (rc) snap_pipes_free(out);
    return rc;
}

bool snap_pipes_holds(const struct snap_pipes *s, int proc, int fd)
{
    for (int i = 0; i < s->n; i++)
        for (int e = 0; e < 2; e++)
            for (int k = 0; k < s->v[i].nfds[e]; k++)
                if (s->v[i].fds[e][k].proc == proc && s->v[i].fds[e][k].fd == fd) return true;
    return false;
}

/* The lowest process that holds an end of p. */
static int creator_of(const struct snap_pipe *p)
{
    int c = -1;
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < p->nfds[e]; k++)
            if (c < 0 || p->fds[e][k].proc < c) c = p->fds[e][k].proc;
    return c;
}

/* t puts its open file at fd `from` at each of end's fds of its own (proc). */
static long settle_end(struct tracee *t, const struct snap_pipe *p, int end, int proc, int from)
{
    long r = 0;
    for (int k = 0; k < p->nfds[end] && !r; k++) {
        const struct snap_pipe_fd *f = &p->fds[end][k];
        if (f->proc != proc) continue;
        long d = inject(t, SYS_dup3, (uint64_t)from, (uint64_t)f->fd, (uint64_t)f->flags, NULL);
        r = d == f->fd ? 0 : d < 0 ? d : -EBADF;
    }
    return r;
}

/* Whether process proc holds an end of p. */
static bool holds_end(const struct snap_pipe *p, int end, int proc)
{
    for (int k = 0; k < p->nfds[end]; k++)
        if (p->fds[end][k].proc == proc) return true;
    return false;
}

/* Copy proc takes the creator's fd `at` (pidfd_getfd) and puts it at its
 * fds of end. */
static long take_end(struct tracee *t, const struct snap_pipe *p, int end, int proc, pid_t creator, int at)
{
    long pidfd = inject(t, SYS_pidfd_open, (uint64_t)creator, 0, 0, NULL);
    if (pidfd < 0) return pidfd;
    long got = inject(t, SYS_pidfd_getfd, (uint64_t)pidfd, (uint64_t)at, 0, NULL);
    long r = got < 0 ? got : settle_end(t, p, end, proc, (int)got);
    if (got >= 0) inject(t, SYS_close, (uint64_t)got, 0, 0, NULL);
    inject(t, SYS_close, (uint64_t)pidfd, 0, 0, NULL);
    return r;
}

/* t makes p's kind of pipe or socket pair, its two ends at tmp[0..1]
 * (close-on-exec): 0 or -errno. */
static long made_pair(struct tracee *t, const struct snap_pipe *p, int tmp[2])
{
    int zero[2] = { 0, 0 };
    if (!p->type) return inject_buf(t, SYS_pipe2, 0, zero, sizeof zero, tmp, 0, O_CLOEXEC, 0);
    uint64_t base = scratch_addr(t);
    char saved[SCRATCH_LEN];
    if (mem_read(t->pid, base, saved, sizeof saved) != 0) return -EFAULT;
    long r = inject4(t, SYS_socketpair, AF_UNIX, (uint64_t)(p->type | SOCK_CLOEXEC), 0, base, NULL);
    if (r == 0 && mem_read(t->pid, base, tmp, 2 * sizeof *tmp) != 0) r = -EFAULT;
    if (mem_write(t->pid, base, saved, sizeof saved) != 0 && r == 0) r = -EFAULT;
    return r;
}

static long make_one(const struct snap_pipe *p, struct tracee *copies, const pid_t *vpids, int n)
{
    int c = creator_of(p), tmp[2] = { -1, -1 };
    if (c < 0 || c >= n) return -EINVAL;
    struct tracee *t = &copies[c];
    long r = made_pair(t, p, tmp);
    if (r != 0) return r < 0 ? r : -EINVAL;
    if (!p->type) {
        long sz = inject(t, SYS_fcntl, (uint64_t)tmp[0], F_SETPIPE_SZ, (uint64_t)p->size, NULL);
        r = sz == p->size ? 0 : sz < 0 ? sz : -EINVAL;
    }
    if (!r && p->nbytes) {
        long w = inject_buf(t, SYS_write, 1, p->bytes, (size_t)p->nbytes, NULL, (uint64_t)tmp[1], 0, (uint64_t)p->nbytes);
        r = w == p->nbytes ? 0 : w < 0 ? w : -EIO;
    }
    for (int e = 0; e < 2 && !r; e++)
        if (p->nonblock[e] > 0) r = inject(t, SYS_fcntl, (uint64_t)tmp[e], F_SETFL, O_NONBLOCK, NULL);
    for (int e = 0; e < 2 && !r; e++) r = settle_end(t, p, e, c, tmp[e]);
    for (int k = 0; k < n && !r; k++)
        for (int e = 0; e < 2 && !r; e++)
            if (k != c && holds_end(p, e, k)) r = take_end(&copies[k], p, e, k, vpids[c], tmp[e]);
    for (int e = 0; e < 2; e++) {
        long cl = inject(t, SYS_close, (uint64_t)tmp[e], 0, 0, NULL);
        if (!r && cl != 0) r = cl;
    }
    return r;
}

long snap_pipes_make(const struct snap_pipes *s, struct tracee *copies, const pid_t *vpids, int n)
{
    long r = 0;
    for (int i = 0; i < s->n && !r; i++) r = make_one(&s->v[i], copies, vpids, n);
    return r;
}

void snap_pipes_free(struct snap_pipes *s)
{
    for (int i = 0; i < s->n; i++) pipe_free(&s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

bool snap_kcmp_works(void)
{
    int fd = open("/", O_PATH | O_CLOEXEC);
    long r = fd >= 0 ? syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, fd, fd) : -1;
    if (fd >= 0) close(fd);
    return r == 0;
}
