/* Copies of tracee fds, and waiting on them: the calls that can block on an
 * fd (rw.c, socket.c, fcntl.c, poll.c, splice.c, mmsg.c).
 *
 * Only one tracee thread runs at a time, so no traced call may sleep in the
 * kernel. Readiness is judged in the supervisor on copies of the tracee's
 * fds (pidfd_getfd: the same open file description), always with zero
 * timeouts or non-blocking I/O. A call that would wait is blocked in the
 * supervisor until its copy polls ready; a read is then passed to the kernel,
 * which finds data or EOF. Writes to blocking pipes and sockets are made by
 * the supervisor itself, in non-blocking steps, since "writable" does not
 * promise room for the whole request. */
#include "syscalls/sys.h"
#include "net/sim/netsim.h"
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* t->poll_copies (poll.c) holds npoll_copies copies, followed in the same
 * allocation by what each one is asked; only the copies need closing. */
void thread_drop_copy(struct thread *t)
{
    if (t->copy_fd >= 0 && t->copy_lent) fd_unhold(t->proc, t->copy_fd);
    else if (t->copy_fd >= 0) close(t->copy_fd);
    t->copy_fd = -1;
    t->copy_lent = t->copy_ready = false;
    for (int i = 0; i < t->npoll_copies; i++)
        if (t->poll_copies[i] >= 0) close(t->poll_copies[i]);
    free(t->poll_copies);
    t->poll_copies = NULL;
    t->npoll_copies = 0;
}

int thread_held_fd(const struct thread *t)
{
    if (t->copy_fd < 0) return -1;
    switch (SYSNR(t)) {
    case SYS_read: case SYS_readv: case SYS_recvfrom: case SYS_recvmsg: case SYS_accept: case SYS_accept4:
    case SYS_write: case SYS_writev: case SYS_sendto: case SYS_sendmsg: case SYS_recvmmsg:
    case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_epoll_pwait2:
        return (int)ARG0(t);
    default:
        return -1;
    }
}

int thread_rehold(struct world *w, struct thread *t)
{
    if (t->npoll_copies) return poll_rehold(w, t);
    int fd = thread_held_fd(t);
    short events = t->copy_events;
    const struct simsock *sim = t->copy_sim;    /* the same socket of the simulation's */
    if (fd < 0) return -1;
    thread_drop_copy(t);
    int copy = fd_copy(w, t, fd);
    if (copy < 0) return -1;
    hold_copy(t, copy, events);
    t->copy_sim = sim;
    return 0;
}

/* Keeps copy across a block; fd_ready_check polls it for `events`. */
void hold_copy(struct thread *t, int copy, short events)
{
    thread_drop_copy(t);
    t->copy_fd = copy;
    t->copy_events = events;
    t->copy_sim = NULL;         /* set by the callers that know it is */
}

int fd_probe(struct world *w, struct thread *t, int fd, struct stat *st)
{
    int copy = fd_copy(w, t, fd);
    if (copy >= 0 && fstat(copy, st) != 0) {
        int e = errno;
        close(copy);
        errno = e;
        return -1;
    }
    return copy;
}

/* A copy that could not be made. A bad fd is the kernel's to report, and it
 * does so at once; any other failure is dsim's own and stops the run. */
enum sys_action fd_copy_error(struct world *w, struct thread *t, int fd)
{
    if (errno == EBADF) return SYS_PASS;
    world_fail(w, OUT_INTERNAL, "cannot copy fd %d of machine %s thread %d: %s", fd,
               t->proc->m->name, t->vtid, strerror(errno));
    return SYS_FENCE;
}

/* dsim's own stdout and stderr: nothing simulated waits on them, so a write
 * there may block in the kernel. */
bool fd_external(const struct world *w, const struct stat *st)
{
    for (int i = 0; i < w->nexternal; i++)
        if (w->external[i].dev == st->st_dev && w->external[i].ino == st->st_ino) return true;
    return false;
}

/* Decides on a probed copy, which it consumes: 0 (closed) if a blocking call
 * can go now, 1 (held in t->copy_fd) if it must wait for `events`, 2 if so
 * and its poll found none (not an error). */
static int must_wait(struct world *w, struct thread *t, int copy, const struct stat *st, short events,
                     const struct simsock *s)
{
    /* The retried call's copy was found ready just before its handler:
     * nothing has run since, so it still is (a lent copy has one number). */
    if (copy == t->ready_copy && events == t->copy_events) {
        fd_return(t, copy);
        return 0;
    }
    mode_t type = st->st_mode & S_IFMT;
    int polled = -1;
    bool wait = type != S_IFREG && type != S_IFDIR && type != S_IFBLK && type != S_IFCHR &&
                !fd_external(w, st);
    if (wait) {
        /* A simulated socket's flags are known (read and write, and its
         * O_NONBLOCK); anything else's are asked. */
        int fl = s ? O_RDWR | (s->nonblock ? O_NONBLOCK : 0) : fcntl(copy, F_GETFL), acc = fl & O_ACCMODE;
        struct pollfd p = { copy, events, 0 };
        /* An fd not open for the direction (a pipe's other end) fails at
         * once (EBADF): the kernel says so. A failed poll (EINTR) waits:
         * the ready check polls again. */
        wait = fl >= 0 && !(fl & O_NONBLOCK) && !(events == POLLIN && acc == O_WRONLY) &&
               !(events == POLLOUT && acc == O_RDONLY) && (polled = sig_poll(w, t, &p, 1)) <= 0;
    }
    if (!wait) {
        fd_return(t, copy);
        return 0;
    }
    fd_hold(t, copy, events);
    t->copy_sim = s ? s : S_ISSOCK(st->st_mode) ? netsim_lookup(w, st->st_ino) : NULL;
    return polled == 0 ? 2 : 1;
}

void fd_note_unready(struct world *w, struct thread *t)
{
    t->unready_epoch = w->io_epoch;
    t->unready_calm = w->io_calm_moves;
    t->unready_relay = w->io_relay_moves;
    t->unready_gen = t->copy_sim ? t->copy_sim->relay_gen : 0;
}

bool fd_still_unready(const struct world *w, const struct thread *t)
{
    const struct simsock *s = t->copy_sim;
    if (t->unready_epoch == UINT64_MAX) return false;
    if (t->unready_epoch == w->io_epoch) return true;
    uint64_t calm = w->io_calm_moves - t->unready_calm, relay = w->io_relay_moves - t->unready_relay;
    return s && t->ready == fd_ready_check && w->io_epoch - t->unready_epoch == calm + relay &&
           s->relay_gen == t->unready_gen;
}

bool fd_ready_check(struct world *w, struct thread *t)
{
    if (t->copy_fd < 0) return true;    /* nothing held: let the handler decide */
    struct pollfd p = { t->copy_fd, t->copy_events, 0 };
    /* The watchdog's SIGALRM never passes for readiness (sig_poll retries). */
    int n = sig_poll(w, t, &p, 1);
    t->copy_ready = n > 0;
    return n != 0;                      /* an error too: the handler looks again */
}

/* When a call that must wait on a socket gives up: its SO_RCVTIMEO or
 * SO_SNDTIMEO, on virtual time, from its first wait (Linux times the whole
 * call); UINT64_MAX if none. */
uint64_t sock_deadline(struct world *w, struct thread *t, int copy, const struct stat *st, int name)
{
    if (t->retry) return t->deadline;
    /* A simulated socket's timeouts are set only through its setsockopt,
     * which keeps them as a machine's kernel does (sockopt.c): not the
     * host's copy, rounded to the host's tick. */
    struct simsock *s = S_ISSOCK(st->st_mode) ? netsim_lookup(w, st->st_ino) : NULL;
    const struct sockopt *o = s ? netsim_opt(s, SOL_SOCKET, name) : NULL;
    if (s && !o) return UINT64_MAX;
    struct timeval tv;
    socklen_t len = sizeof tv;
    const struct sock_timeouts *own = !s && S_ISSOCK(st->st_mode) ? sock_timeouts_of(w, st->st_ino, false) : NULL;
    if (o) memcpy(&tv, o->val, sizeof tv);
    else if (own) tv = own->tv[name == SO_SNDTIMEO];
    else if (!S_ISSOCK(st->st_mode) || getsockopt(copy, SOL_SOCKET, name, &tv, &len) != 0)
        return UINT64_MAX;
    if (!tv.tv_sec && !tv.tv_usec) return UINT64_MAX;
    return w->now + (uint64_t)tv.tv_sec * 1000000000 + (uint64_t)tv.tv_usec * 1000;
}

/* The end of a handler that waits for readiness on a probed copy. A socket
 * whose receive timeout passes fails with EAGAIN, as Linux's does. */
static enum sys_action wait_or_pass(struct world *w, struct thread *t, int copy, const struct stat *st,
                                    short events, const struct simsock *s)
{
    int wait = must_wait(w, t, copy, st, events, s);
    if (!wait) return SYS_PASS;
    uint64_t deadline = sock_deadline(w, t, t->copy_fd, st, SO_RCVTIMEO);
    if (deadline > w->now) {
        enum sys_action a = block(t, deadline, fd_ready_check);
        if (wait == 2) fd_note_unready(w, t);   /* must_wait's poll, at this io_epoch */
        return a;
    }
    thread_drop_copy(t);
    return emulate(t, -EAGAIN);
}

/* Reads and accepts of simulated sockets: the socket layer may answer at
 * once (a reset), or want the exit stop (addresses); waiting is as for any
 * fd. Consumes the copy. */
enum sys_action read_or_wait(struct world *w, struct thread *t, int copy, const struct stat *st, short events,
                             bool may_wait)
{
    struct simsock *s = S_ISSOCK(st->st_mode) ? netsim_lookup(w, st->st_ino) : NULL;
    enum sys_action a = SYS_PASS;
    if (s) {
        bool accepting = SYSNR(t) == SYS_accept || SYSNR(t) == SYS_accept4;
        a = accepting ? (s->listening ? sock_accept(w, t, s) : SYS_PASS) : sock_read(w, t, s, copy);
        if (a == SYS_EMULATE) {
            fd_return(t, copy);
            return a;
        }
    }
    if (!may_wait) {
        fd_return(t, copy);
        return a;
    }
    if (wait_or_pass(w, t, copy, st, events, s) == SYS_BLOCK) {
        t->on_exit = NULL;      /* set again when the call is retried */
        return SYS_BLOCK;
    }
    return a;
}
