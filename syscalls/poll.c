/* poll, select and epoll. The supervisor computes readiness itself, on
 * copies of the tracee's fds polled with zero timeouts, and writes the
 * results into the tracee's memory: the kernel never sleeps in these calls.
 * A call that finds nothing ready waits in the supervisor (SYS_BLOCK) with
 * its copies held, until they poll ready or its deadline passes.
 *
 * The signal-mask swap of ppoll, pselect6 and epoll_pwait(2) is handled in
 * signal.c: a signal their mask lets in makes the real call run, which
 * returns EINTR at once as Linux would. */
#include "syscalls/sys.h"
#include <sys/syscall.h>
#include "world/tracer.h"
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define POLL_MAX_FDS 65536      /* stands for RLIMIT_NOFILE in poll's nfds check */
#define EPOLL_BATCH 1024        /* events one epoll_wait returns at most */

/* What a watched fd is asked: host poll events in the low 16 bits; for
 * select, the sets it is in. */
#define W_READ   (1 << 16)
#define W_WRITE  (1 << 17)
#define W_EXCEPT (1 << 18)
#define W_SETS   (W_READ | W_WRITE | W_EXCEPT)
/* What each select set reports, as Linux defines it (POLLIN_SET...). */
#define SEL_IN   (POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR)
#define SEL_OUT  (POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR)
#define SEL_EX   POLLPRI
#define BADFD    (-2)           /* a copy slot whose fd the tracee does not have */

/* ---- the call's deadline ---- */

/* Computed when the call first runs and kept in call.poll.deadline, so
 * that retries do not push it back; call.poll.timeout says whether the
 * call has a timeout and whether it was zero (Linux writes no remaining
 * time back then). */
enum { TO_SET = 1, TO_ZERO = 2 };

static void timer_start(struct world *w, struct thread *t, bool has, uint64_t rel)
{
    uint64_t deadline = !has ? UINT64_MAX : rel > UINT64_MAX - w->now ? UINT64_MAX : w->now + rel;
    t->call.poll.deadline = deadline;
    t->call.poll.timeout = (has ? TO_SET : 0) | (has && rel == 0 ? TO_ZERO : 0);
}

static void timer_start_ms(struct world *w, struct thread *t, int ms)
{
    timer_start(w, t, ms >= 0, ms >= 0 ? (uint64_t)ms * 1000000 : 0);
}

/* A struct timespec timeout at addr (0: none). 0 or -errno. */
static long timer_start_ts(struct world *w, struct thread *t, uint64_t addr)
{
    uint64_t rel = 0;
    int err = addr ? read_timespec(t, addr, &rel) : 0;
    if (!err) timer_start(w, t, addr != 0, rel);
    return err;
}

static uint64_t deadline(const struct thread *t) { return t->call.poll.deadline; }
static bool expired(const struct world *w, const struct thread *t) { return t->timed_out || deadline(t) <= w->now; }

/* Writes the time left to the caller's timeout (select: a timeval), as
 * select, pselect6 and ppoll do on return; a failed write changes nothing. */
static void put_remaining(struct world *w, struct thread *t, uint64_t addr, bool timeval)
{
    if (!addr || (t->call.poll.timeout & (TO_SET | TO_ZERO)) != TO_SET) return;
    uint64_t left = deadline(t) > w->now ? deadline(t) - w->now : 0;
    int64_t v[2] = { (int64_t)(left / 1000000000), (int64_t)(left % 1000000000) };
    if (timeval) v[1] /= 1000;
    mem_write(t->tid, addr, v, sizeof v);
}

void poll_interrupted(struct world *w, struct thread *t)
{
    long nr = SYSNR(t);
    if (nr == SYS_select) put_remaining(w, t, ARG4(t), true);
    else if (nr == SYS_pselect6) put_remaining(w, t, ARG4(t), false);
    else if (nr == SYS_ppoll) put_remaining(w, t, ARG2(t), false);
}

/* Starts a run of the handler: true if it is a retry after a block. The
 * copies held while blocked are dropped; each run recomputes everything. */
static bool begin(struct thread *t)
{
    thread_drop_copy(t);
    return t->retry;
}

/* A copy failed for another reason than a bad fd: dsim's own fault. */
static enum sys_action copy_failed(struct world *w, struct thread *t, int fd)
{
    world_fail(w, OUT_INTERNAL, "cannot copy fd %d of machine %s thread %d: %s", fd,
               t->proc->m->name, t->vtid, strerror(errno));
    return SYS_FENCE;
}

/* ---- watch lists: poll and select ---- */

/* The fds one poll or select call watches. copy, ask and fd share one
 * allocation, which a blocked call hands to t->poll_copies (n copies, then
 * n asks, then the n tracee fds they copy): thread_drop_copy closes the
 * copies and frees it. */
struct watch {
    int n;
    int *copy;      /* -1: an fd poll ignores; BADFD */
    int *ask;
    int *fd;
    short *rev;
};

static void watch_init(struct watch *wl, int n)
{
    wl->n = n;
    wl->copy = malloc(sizeof(int) * (3 * (size_t)n + 1));
    wl->rev = calloc((size_t)n + 1, sizeof(short));
    if (!wl->copy || !wl->rev) abort();
    wl->ask = wl->copy + n;
    wl->fd = wl->copy + 2 * n;
    for (int i = 0; i < n; i++) wl->copy[i] = wl->fd[i] = -1;
}

static void watch_free(struct watch *wl)
{
    for (int i = 0; wl->copy && i < wl->n; i++)
        if (wl->copy[i] >= 0) close(wl->copy[i]);
    free(wl->copy);
    free(wl->rev);
}

/* Watches tracee fd in slot i. 0; 1 if the tracee has no such fd (the slot
 * is BADFD); -1 with errno if the copy failed otherwise. */
static int watch_add(struct world *w, struct thread *t, struct watch *wl, int i, int fd, int ask)
{
    wl->ask[i] = ask;
    wl->fd[i] = fd;
    if (fd < 0) return 0;
    wl->copy[i] = fd_copy(w, t, fd);
    if (wl->copy[i] >= 0) return 0;
    if (errno != EBADF) return -1;
    wl->copy[i] = BADFD;
    return 1;
}

/* What one result counts for: poll counts a ready fd once, select counts
 * each set that reports it. */
static int hits(int ask, short rev)
{
    if (!(ask & W_SETS)) return rev != 0;
    return ((ask & W_READ) && (rev & SEL_IN)) + ((ask & W_WRITE) && (rev & SEL_OUT)) +
           ((ask & W_EXCEPT) && (rev & SEL_EX));
}

/* Polls the copies once, without waiting. Fills rev (if not NULL) and
 * returns the call's count. */
static int watch_poll(struct world *w, struct thread *t, const int *copy, const int *ask, short *rev, int n)
{
    struct pollfd *p = calloc((size_t)n + 1, sizeof *p);
    if (!p) abort();
    for (int i = 0; i < n; i++) p[i] = (struct pollfd){ copy[i], (short)(ask[i] & 0xffff), 0 };
    sig_poll(w, t, p, (unsigned long)n);
    int count = 0;
    for (int i = 0; i < n; i++) {
        short r = copy[i] == BADFD ? POLLNVAL : p[i].revents;
        if (rev) rev[i] = r;
        count += hits(ask[i], r);
    }
    free(p);
    return count;
}

static bool watch_ready(struct world *w, struct thread *t)
{
    int n = t->npoll_copies;
    return watch_poll(w, t, t->poll_copies, t->poll_copies + n, NULL, n) > 0;
}

bool ready_on_fds(ready_fn ready) { return ready == fd_ready_check || ready == watch_ready; }

int poll_rehold(struct world *w, struct thread *t)
{
    int n = t->npoll_copies, *copy = t->poll_copies, *fd = t->poll_copies + 2 * n;
    for (int i = 0; i < n; i++) {
        if (copy[i] < 0) continue;          /* ignored, or BADFD: the copy has no such fd either */
        close(copy[i]);
        if ((copy[i] = fd_copy(w, t, fd[i])) < 0) return -1;
    }
    return 0;
}

/* Polls once. Returns true if the call must wait: then t holds the copies
 * (wl->copy is handed over). Otherwise *count is the result. */
static bool watch_wait(struct world *w, struct thread *t, struct watch *wl, int *count)
{
    *count = watch_poll(w, t, wl->copy, wl->ask, wl->rev, wl->n);
    if (*count > 0 || expired(w, t)) return false;
    t->poll_copies = wl->copy;
    t->npoll_copies = wl->n;
    wl->copy = NULL;
    return true;
}

/* ---- poll, ppoll ---- */

static enum sys_action poll_call(struct world *w, struct thread *t, uint64_t ufds, unsigned int nfds, uint64_t tsp)
{
    if (nfds > POLL_MAX_FDS) return emulate(t, -EINVAL);
    int n = (int)nfds;
    size_t size = (size_t)n * sizeof(struct pollfd);
    struct pollfd *pf = malloc(size + 1);
    if (!pf) abort();
    if (n && mem_read(t->tid, ufds, pf, size) != 0) {
        free(pf);
        return emulate(t, -EFAULT);
    }
    struct watch wl;
    watch_init(&wl, n);
    for (int i = 0; i < n; i++) {
        if (watch_add(w, t, &wl, i, pf[i].fd, (unsigned short)pf[i].events) < 0) {
            enum sys_action a = copy_failed(w, t, pf[i].fd);
            watch_free(&wl);
            free(pf);
            return a;
        }
    }
    int count;
    bool wait = watch_wait(w, t, &wl, &count);
    for (int i = 0; i < n && !wait; i++) pf[i].revents = wl.rev[i];
    long r = !wait && n && mem_write(t->tid, ufds, pf, size) != 0 ? -EFAULT : count;
    watch_free(&wl);
    free(pf);
    if (wait) return block(t, deadline(t), watch_ready);
    put_remaining(w, t, tsp, false);
    return emulate(t, r);
}

enum sys_action sys_poll(struct world *w, struct thread *t)
{
    if (!begin(t)) timer_start_ms(w, t, (int)ARG2(t));
    return poll_call(w, t, ARG0(t), (unsigned int)ARG1(t), 0);
}

enum sys_action sys_ppoll(struct world *w, struct thread *t)
{
    if (!begin(t)) {
        long err = timer_start_ts(w, t, ARG2(t));
        if (err) return emulate(t, err);
    }
    return poll_call(w, t, ARG0(t), (unsigned int)ARG1(t), ARG2(t));
}

/* ---- select, pselect6 ---- */

/* Linux clamps select's nfds to the size of the caller's fd table; without
 * /proc, to the default fs.nr_open. */
static int fd_table_size(pid_t tid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    FILE *f = fopen(path, "re");
    int size = 1 << 20;
    if (!f) return size;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "FDSize: %d", &size) == 1) break;
    fclose(f);
    return size;
}

static bool bit(const uint64_t *set, int fd) { return set[fd / 64] >> (fd % 64) & 1; }

/* A select whose timeout, if any, has been read: the tracee's sets are ARG1..ARG3. */
static enum sys_action select_call(struct world *w, struct thread *t, uint64_t tout, bool timeval)
{
    int nfds = (int)ARG0(t);
    if (nfds < 0) return emulate(t, -EINVAL);
    int max = fd_table_size(t->tid);
    if (nfds > max) nfds = max;
    size_t words = ((size_t)nfds + 63) / 64;
    uint64_t uset[3] = { ARG1(t), ARG2(t), ARG3(t) };
    uint64_t *in = calloc(3 * words + 1, sizeof *in), *out = calloc(3 * words + 1, sizeof *out);
    if (!in || !out) abort();
    long r = 0;
    for (int k = 0; k < 3 && !r; k++)
        if (uset[k] && words && mem_read(t->tid, uset[k], in + k * words, words * 8) != 0) r = -EFAULT;

    int n = 0;
    for (int fd = 0; fd < nfds && !r; fd++)
        n += bit(in, fd) || bit(in + words, fd) || bit(in + 2 * words, fd);
    int *fds = malloc(sizeof(int) * ((size_t)n + 1));
    if (!fds) abort();
    struct watch wl;
    watch_init(&wl, n);
    enum sys_action a = SYS_EMULATE;
    for (int fd = 0, i = 0; i < n && !r && a == SYS_EMULATE; fd++) {
        int ask = (bit(in, fd) ? W_READ | POLLIN | POLLRDNORM | POLLRDBAND : 0) |
                  (bit(in + words, fd) ? W_WRITE | POLLOUT | POLLWRNORM | POLLWRBAND : 0) |
                  (bit(in + 2 * words, fd) ? W_EXCEPT | POLLPRI : 0);
        if (!ask) continue;
        fds[i] = fd;
        int e = watch_add(w, t, &wl, i++, fd, ask);
        if (e > 0) r = -EBADF;                  /* one closed fd fails the whole call */
        else if (e < 0) a = copy_failed(w, t, fd);
    }

    int count = 0;
    if (!r && a == SYS_EMULATE && watch_wait(w, t, &wl, &count)) a = SYS_BLOCK;
    if (!r && a == SYS_EMULATE) {
        for (int i = 0; i < n; i++) {
            uint64_t b = 1ULL << (fds[i] % 64);
            size_t word = (size_t)fds[i] / 64;
            if ((wl.ask[i] & W_READ) && (wl.rev[i] & SEL_IN)) out[word] |= b;
            if ((wl.ask[i] & W_WRITE) && (wl.rev[i] & SEL_OUT)) out[words + word] |= b;
            if ((wl.ask[i] & W_EXCEPT) && (wl.rev[i] & SEL_EX)) out[2 * words + word] |= b;
        }
        r = count;
        for (int k = 0; k < 3; k++)
            if (uset[k] && words && mem_write(t->tid, uset[k], out + k * words, words * 8) != 0) r = -EFAULT;
        put_remaining(w, t, tout, timeval);
    }
    watch_free(&wl);
    free(fds);
    free(in);
    free(out);
    if (a == SYS_BLOCK) return block(t, deadline(t), watch_ready);
    return a == SYS_EMULATE ? emulate(t, r) : a;
}

/* select's timeval: Linux folds tv_usec of a second or more into tv_sec
 * and refuses negative times. 0 or -errno. */
static long timer_start_tv(struct world *w, struct thread *t, uint64_t addr)
{
    if (!addr) {
        timer_start(w, t, false, 0);
        return 0;
    }
    int64_t tv[2], sec;
    if (mem_read(t->tid, addr, tv, sizeof tv) != 0) return -EFAULT;
    if (__builtin_add_overflow(tv[0], tv[1] / 1000000, &sec)) return -EINVAL;
    int64_t nsec = tv[1] % 1000000 * 1000;
    if (sec < 0 || nsec < 0) return -EINVAL;
    timer_start(w, t, true, ts_to_ns(sec, nsec));
    return 0;
}

enum sys_action sys_select(struct world *w, struct thread *t)
{
    if (!begin(t)) {
        long err = timer_start_tv(w, t, ARG4(t));
        if (err) return emulate(t, err);
    }
    return select_call(w, t, ARG4(t), true);
}

enum sys_action sys_pselect6(struct world *w, struct thread *t)
{
    if (!begin(t)) {
        long err = timer_start_ts(w, t, ARG4(t));
        if (err) return emulate(t, err);
    }
    return select_call(w, t, ARG4(t), false);
}

/* ---- epoll_wait, epoll_pwait, epoll_pwait2 ---- */

/* The supervisor's epoll_wait on a copy of epfd works on the same epoll
 * instance, so it consumes edge-triggered and one-shot events exactly as the
 * tracee's own call would. A blocked call holds the copy and waits for it to
 * poll readable, which an epoll fd does when events are ready, without
 * consuming them. At most EPOLL_BATCH events are returned at once. */
static enum sys_action epoll_call(struct world *w, struct thread *t)
{
    int epfd = (int)ARG0(t), maxevents = (int)ARG2(t);
    uint64_t uev = ARG1(t);
    if (maxevents <= 0 || maxevents > INT_MAX / (int)sizeof(struct epoll_event)) return emulate(t, -EINVAL);
    int copy = fd_copy(w, t, epfd);
    if (copy < 0) return errno == EBADF ? SYS_PASS : copy_failed(w, t, epfd);   /* EBADF, at once */
    int cap = maxevents < EPOLL_BATCH ? maxevents : EPOLL_BATCH;
    size_t size = (size_t)cap * sizeof(struct epoll_event);
    struct epoll_event ev[EPOLL_BATCH];
    /* A bad buffer fails before any event is taken: an edge-triggered
     * event, once taken, could not be put back. */
    if (mem_read(t->tid, uev, ev, size) != 0 || mem_write(t->tid, uev, ev, size) != 0) {
        close(copy);
        return emulate(t, -EFAULT);
    }
    int n;
    n = sig_epoll_wait(w, t, copy, ev, cap);
    if (n < 0) {                                /* EINVAL: not an epoll fd */
        int e = errno;
        close(copy);
        return emulate(t, -e);
    }
    if (n == 0 && !expired(w, t)) {
        t->copy_fd = copy;
        t->copy_events = POLLIN;
        return block(t, deadline(t), fd_ready_check);
    }
    close(copy);
    if (n > 0 && mem_write(t->tid, uev, ev, (size_t)n * sizeof *ev) != 0) return emulate(t, -EFAULT);
    return emulate(t, n);
}

enum sys_action sys_epoll_wait(struct world *w, struct thread *t)
{
    if (!begin(t)) timer_start_ms(w, t, (int)ARG3(t));
    return epoll_call(w, t);
}

enum sys_action sys_epoll_pwait(struct world *w, struct thread *t) { return sys_epoll_wait(w, t); }

enum sys_action sys_epoll_pwait2(struct world *w, struct thread *t)
{
    if (!begin(t)) {
        long err = timer_start_ts(w, t, ARG3(t));
        if (err) return emulate(t, err);
    }
    return epoll_call(w, t);
}
