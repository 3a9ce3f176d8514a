/* Reads and writes of fds: read, readv, pread64, preadv, write, writev,
 * pwrite64, pwritev, pwritev2, and on sockets recvfrom, recvmsg, sendto and
 * sendmsg. A call that would wait blocks in the supervisor (fdwait.c); a
 * read is then passed to the kernel, which finds data or EOF. Writes to
 * blocking pipes and sockets are made by the supervisor itself, in
 * non-blocking steps, since "writable" does not promise room for the whole
 * request. */
#include "syscalls/sys.h"
#include "world/tracer.h"
#include "net/sim/netsim.h"
#include "disk/durable.h"
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#define UIO_MAX 1024                /* UIO_MAXIOV */
#define RW_MAX 0x7ffff000UL         /* MAX_RW_COUNT: Linux's cap on one read or write */
#define WRITE_STEP (1UL << 20)      /* data the supervisor moves in one step */
#define RANDOM_MAX 33554431UL       /* one read of /dev/urandom, as Linux before 5.18 */

/* ---- tracee buffers ---- */

/* The buffers one call names in the tracee (iov_base are tracee addresses). */
struct ubufs {
    unsigned long n;
    size_t total;
    struct iovec iov[UIO_MAX];
};

static void ubufs_one(struct ubufs *b, uint64_t addr, size_t len)
{
    if (len > RW_MAX) len = RW_MAX;
    b->n = 1;
    b->total = len;
    b->iov[0] = (struct iovec){ (void *)(uintptr_t)addr, len };
}

/* Reads an iovec array; the total is capped like Linux's. 0 or -errno. */
static long ubufs_vec(struct ubufs *b, struct thread *t, uint64_t addr, unsigned long n)
{
    if (n > UIO_MAX) return -EINVAL;
    if (n && mem_read(t->tid, addr, b->iov, n * sizeof *b->iov) != 0) return -EFAULT;
    b->n = n;
    b->total = 0;
    for (unsigned long i = 0; i < n; i++) {
        if ((ssize_t)b->iov[i].iov_len < 0) return -EINVAL;
        if (b->iov[i].iov_len > RW_MAX - b->total) b->iov[i].iov_len = RW_MAX - b->total;
        b->total += b->iov[i].iov_len;
    }
    return 0;
}

/* Copies up to max bytes of the buffers, after the first skip bytes, into
 * out. Returns the bytes copied; it stops at the first unreadable piece. */
static size_t ubufs_gather(struct thread *t, const struct ubufs *b, size_t skip, char *out, size_t max)
{
    size_t got = 0;
    for (unsigned long i = 0; i < b->n && got < max; i++) {
        size_t len = b->iov[i].iov_len;
        if (skip >= len) {
            skip -= len;
            continue;
        }
        size_t take = len - skip < max - got ? len - skip : max - got;
        if (mem_read(t->tid, (uint64_t)(uintptr_t)b->iov[i].iov_base + skip, out + got, take) != 0) break;
        got += take;
        skip = 0;
    }
    return got;
}

/* ---- reads ---- */

/* /dev/random, /dev/urandom and /dev/hwrng (a hardware generator's bytes),
 * by device number, whatever the path. */
bool random_dev(const struct stat *st)
{
    return S_ISCHR(st->st_mode) &&
           (st->st_rdev == makedev(1, 8) || st->st_rdev == makedev(1, 9) || st->st_rdev == makedev(10, 183));
}

/* The random devices read the machine's seeded stream. */
static long random_into(struct world *w, struct thread *t, const struct ubufs *b)
{
    size_t done = 0;
    for (unsigned long i = 0; i < b->n && done < RANDOM_MAX; i++) {
        size_t len = b->iov[i].iov_len < RANDOM_MAX - done ? b->iov[i].iov_len : RANDOM_MAX - done;
        long got = random_to_tracee(w, t, (uint64_t)(uintptr_t)b->iov[i].iov_base, len);
        if (got < 0) return done ? (long)done : got;
        done += (size_t)got;
        if ((size_t)got < len) break;           /* a bad address part way */
    }
    return (long)done;
}

static enum sys_action random_read(struct world *w, struct thread *t, int copy, bool vec, bool positional)
{
    int fl = fcntl(copy, F_GETFL);
    if (fl < 0 || (fl & O_PATH) || (fl & O_ACCMODE) == O_WRONLY) return SYS_PASS;  /* EBADF, from the kernel */
    /* preadv2 takes -1 for "the file position". */
    if (positional && (long)ARG3(t) < (SYSNR(t) == SYS_preadv2 ? -1 : 0)) return emulate(t, -EINVAL);
    struct ubufs b;
    if (!vec) ubufs_one(&b, ARG1(t), ARG2(t));
    else {
        long err = ubufs_vec(&b, t, ARG1(t), ARG2(t));
        if (err) return emulate(t, err);
    }
    return emulate(t, random_into(w, t, &b));
}

/* A process's /proc file that dsim makes (procfs.c): its text from the
 * file position (or the call's offset) into the caller's buffers, and the
 * position moves on. False if it is no such file. */
static bool proc_read(struct world *w, struct thread *t, int copy, const struct stat *st, bool vec, bool positional,
                      enum sys_action *a)
{
    bool at_offset = positional && !(SYSNR(t) == SYS_preadv2 && (long)ARG3(t) == -1);
    if (!procfs_file(t->proc->m, st) || (at_offset && (long)ARG3(t) < 0)) return false;
    off_t pos = at_offset ? (off_t)ARG3(t) : lseek(copy, 0, SEEK_CUR);
    size_t len;
    const char *text = pos < 0 ? NULL : procfs_text(w, t, (int)ARG0(t), copy, st, (uint64_t)pos, &len);
    if (!text) return false;
    struct ubufs b;
    long err = 0;
    if (!vec) ubufs_one(&b, ARG1(t), ARG2(t));
    else err = ubufs_vec(&b, t, ARG1(t), ARG2(t));
    size_t done = 0, from = (size_t)pos < len ? (size_t)pos : len;
    for (unsigned long i = 0; !err && i < b.n && from + done < len; i++) {
        size_t n = b.iov[i].iov_len < len - from - done ? b.iov[i].iov_len : len - from - done;
        if (mem_write(t->tid, (uint64_t)(uintptr_t)b.iov[i].iov_base, text + from + done, n) != 0) {
            if (!done) err = -EFAULT;
            break;
        }
        done += n;
    }
    if (!err && !at_offset) lseek(copy, pos + (off_t)done, SEEK_SET);
    *a = emulate(t, err ? err : (long)done);
    return true;
}

/* read, readv, pread64, preadv, preadv2. */
static enum sys_action read_call(struct world *w, struct thread *t, bool vec, bool positional)
{
    int fd = (int)ARG0(t);
    if (fd_plain(t->proc, fd)) return SYS_PASS;         /* as below, without a copy */
    struct stat st;
    int copy = fd_lend(w, t, fd, &st);
    if (copy < 0) return fd_copy_error(w, t, fd);
    enum sys_action a;
    bool served = random_dev(&st) ? (a = random_read(w, t, copy, vec, positional), true)
                                  : proc_read(w, t, copy, &st, vec, positional, &a);
    if (served) {
        fd_return(t, copy);
        return a;
    }
    /* A plain file or directory is read at once (must_wait, fdwait.c);
     * a /proc file may be one of dsim's texts at another position. */
    if ((S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) && !procfs_file(t->proc->m, &st)) {
        fd_plain_note(t->proc, fd);
        fd_return(t, copy);
        return SYS_PASS;
    }
    /* preadv2 at offset -1 reads at the file position, like readv. */
    if (positional && SYSNR(t) == SYS_preadv2 && (long)ARG3(t) == -1) positional = false;
    /* Positional reads never wait: pipes and sockets refuse them (ESPIPE).
     * RWF_NOWAIT does not wait either, nor a zero-length read of a pipe. */
    if (positional || (SYSNR(t) == SYS_preadv2 && (ARG5(t) & RWF_NOWAIT)) ||
        (!vec && S_ISFIFO(st.st_mode) && ARG2(t) == 0)) {
        fd_return(t, copy);
        return SYS_PASS;
    }
    bool sigfd = !vec && sigfd_read(w, t, fd, &st);
    a = read_or_wait(w, t, copy, &st, POLLIN, true);
    if (a == SYS_PASS && sigfd) t->exit_quiet = sigfd_taken;    /* the event stays a passed call's */
    return a;
}

enum sys_action sys_read(struct world *w, struct thread *t) { return read_call(w, t, false, false); }
enum sys_action sys_readv(struct world *w, struct thread *t) { return read_call(w, t, true, false); }
enum sys_action sys_pread64(struct world *w, struct thread *t) { return read_call(w, t, false, true); }
enum sys_action sys_preadv(struct world *w, struct thread *t) { return read_call(w, t, true, true); }

/* recvfrom, recvmsg, accept, accept4: wait until the socket is readable.
 * Known gap: MSG_WAITALL on a blocking stream socket is passed once some
 * data is there, and the kernel may then wait for the rest. */
enum sys_action recv_call(struct world *w, struct thread *t, int flags)
{
    if ((flags & MSG_DONTWAIT) && !netsim_active(w)) return SYS_PASS;
    int fd = (int)ARG0(t);
    struct stat st;
    int copy = fd_lend(w, t, fd, &st);
    if (copy < 0) return fd_copy_error(w, t, fd);
    if (!S_ISSOCK(st.st_mode)) {        /* ENOTSOCK, at once */
        fd_return(t, copy);
        return SYS_PASS;
    }
    long nr = SYSNR(t);
    if (nr == SYS_accept || nr == SYS_accept4) {
        /* Only a listening stream socket waits; the kernel refuses the
         * rest at once (EOPNOTSUPP for datagrams, EINVAL unlistened). */
        int type = 0, listening = 0;
        socklen_t len = sizeof type;
        getsockopt(copy, SOL_SOCKET, SO_TYPE, &type, &len);
        len = sizeof listening;
        getsockopt(copy, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len);
        if (type == SOCK_DGRAM || !listening) {
            fd_return(t, copy);
            return SYS_PASS;
        }
    }
    return read_or_wait(w, t, copy, &st, POLLIN, !(flags & MSG_DONTWAIT));
}

enum sys_action sys_recvfrom(struct world *w, struct thread *t) { return recv_call(w, t, (int)ARG3(t)); }
enum sys_action sys_recvmsg(struct world *w, struct thread *t) { return recv_call(w, t, (int)ARG2(t)); }

/* ---- writes ---- */

/* One write call, as its handler reads it. */
struct wcall {
    int fd;
    int flags;          /* send flags; 0 for write and writev */
    long err;           /* the call fails with this (-errno) */
    bool pass;          /* the kernel can make it: it cannot block here */
    bool control;       /* sendmsg with ancillary data */
    uint64_t addr, addrlen;     /* a destination, if given */
    bool probed;        /* sim_write already made copy and st */
    int copy;
    struct stat st;
    struct ubufs b;
};

/* A call's fields, all 0 but fd and flags, except its buffers' iovecs,
 * which ubufs_one or ubufs_vec fill: 16 KiB cleared at every write cost 1%
 * of a TCP ping-pong. */
static void wcall_start(struct wcall *c, int fd, int flags)
{
    memset(c, 0, offsetof(struct wcall, b));
    c->fd = fd;
    c->flags = flags;
    c->b.n = 0;
    c->b.total = 0;
}

static void wcall_unprobe(struct thread *t, struct wcall *c)
{
    if (c->probed) fd_return(t, c->copy);
    c->probed = false;
}

/* Ends a supervised write: the bytes moved so far, else err. */
static enum sys_action write_end(struct thread *t, long err)
{
    long r = t->partial > 0 ? t->partial : err;
    t->partial = 0;
    return emulate(t, r);
}

/* A write the supervisor does not make: what has moved stands, or the kernel makes it. */
static enum sys_action write_leave(struct thread *t)
{
    return t->partial > 0 ? write_end(t, 0) : SYS_PASS;
}

static bool stream_socket(int copy)
{
    int type = 0;
    socklen_t len = sizeof type;
    return getsockopt(copy, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
}

/* One non-blocking write on the copy. A pipe's O_NONBLOCK lives in the open
 * file description the tracee shares: it is set only while the supervisor
 * writes, when no tracee runs. It also keeps writes of up to PIPE_BUF bytes
 * all-or-nothing. */
ssize_t fd_put(int copy, bool sock, int fl, const void *buf, size_t n, int flags)
{
    if (sock) return send(copy, buf, n, flags | MSG_DONTWAIT | MSG_NOSIGNAL);
    if (fcntl(copy, F_SETFL, fl | O_NONBLOCK) != 0) return -1;
    ssize_t k = write(copy, buf, n);
    int e = errno;
    fcntl(copy, F_SETFL, fl);
    errno = e;
    return k;
}

/* EPIPE raises SIGPIPE as Linux does: a pipe always, a socket only when
 * nothing was sent and MSG_NOSIGNAL was not given. The kernel delivers it
 * when the thread returns from the call. */
void raise_sigpipe(struct world *w, struct thread *t, bool sock, int flags)
{
    if (sock && (t->partial > 0 || (flags & MSG_NOSIGNAL))) return;
    syscall(SYS_tgkill, t->proc->pid, t->tid, SIGPIPE);
    signal_generated(w, t->proc, t, SIGPIPE);
}

/* Runs one step of a write call. Blocking pipes and sockets are written by
 * the supervisor, up to WRITE_STEP bytes a step; what is left waits for
 * POLLOUT. t->partial counts what earlier steps moved. */
static enum sys_action write_run(struct world *w, struct thread *t, struct wcall *c)
{
    bool again = t->retry;
    thread_drop_copy(t);                /* the copy of the last step */
    if (!again) t->partial = 0;
    if (c->pass || c->err || (size_t)t->partial >= c->b.total) wcall_unprobe(t, c);
    if (c->pass) return write_leave(t);
    if (c->err) return write_end(t, c->err);
    if ((size_t)t->partial >= c->b.total) return write_leave(t);    /* 0 bytes: the kernel's */

    struct stat st = c->st;
    int copy = c->probed ? c->copy : fd_lend(w, t, c->fd, &st);
    if (copy < 0) return again && errno == EBADF ? write_end(t, -EBADF) : fd_copy_error(w, t, c->fd);
    bool sock = S_ISSOCK(st.st_mode);
    struct simsock *sim = sock ? netsim_lookup(w, st.st_ino) : NULL;
    int fl = sim ? O_RDWR | (sim->nonblock ? O_NONBLOCK : 0) : fcntl(copy, F_GETFL);
    bool ours = (S_ISFIFO(st.st_mode) || sock) && !fd_external(w, &st) && fl >= 0 &&
                !(fl & O_NONBLOCK) && !(c->flags & MSG_DONTWAIT) && (fl & O_ACCMODE) != O_RDONLY;
    /* A datagram goes whole or not at all: one over a step is too big
     * anyway (EMSGSIZE), and the kernel says so at once. */
    if (!ours || (sock && c->b.total > WRITE_STEP && !stream_socket(copy))) {
        bool file = S_ISREG(st.st_mode) && !fd_external(w, &st);
        if (file) {
            /* Where it writes, for the next fsync: appends at the end. */
            off_t at = fl >= 0 && (fl & O_APPEND) ? st.st_size : lseek(copy, 0, SEEK_CUR);
            if (at >= 0) disk_file_written(t->proc->m, &st, (uint64_t)at + (uint64_t)t->partial, c->b.total);
            else disk_file_changed(t->proc->m, &st);
            ftimes_note_fd(w, t, copy, &st);            /* its mtime: now, on the machine's clock */
        }
        else fd_return(t, copy);
        if (file && fl >= 0 && (fl & O_DSYNC) && t->partial == 0) return disk_sync_write(w, t, c->fd);
        return write_leave(t);
    }

    size_t want = c->b.total - (size_t)t->partial;
    if (want > WRITE_STEP) want = WRITE_STEP;
    char *buf = malloc(want);
    if (!buf) abort();
    size_t got = ubufs_gather(t, &c->b, (size_t)t->partial, buf, want);
    /* A simulated TCP socket's bytes may go to the relay without the kernel. */
    int flags = c->flags & ~MSG_DONTWAIT;
    bool taken = got && sim && !(flags & ~MSG_NOSIGNAL) && netsim_take_write(w, sim, buf, got);
    /* Then the step's move of io_epoch changed no fd's readiness (run.c ready_now). */
    if (taken) w->io_calm_moves++;
    ssize_t k = taken ? (ssize_t)got : got ? fd_put(copy, sock, fl, buf, got, flags) : -1;
    int err = !got ? EFAULT : k < 0 ? errno : 0;
    free(buf);
    if (k > 0) t->partial += k;
    if ((size_t)t->partial >= c->b.total) {
        fd_return(t, copy);
        return write_end(t, 0);
    }
    if (k >= 0 || err == EAGAIN) {
        uint64_t deadline = sock_deadline(w, t, copy, &st, SO_SNDTIMEO);
        if (deadline <= w->now) {
            fd_return(t, copy);
            return write_end(t, -EAGAIN);       /* the send timeout: what moved, or EAGAIN */
        }
        fd_hold(t, copy, POLLOUT);
        t->copy_sim = sim;
        return block(t, deadline, fd_ready_check);
    }
    fd_return(t, copy);
    /* Nothing moved yet: the kernel makes the call, fails it at once and
     * raises SIGPIPE itself, with the siginfo Linux gives (SI_USER, from
     * the writer), which a signalfd or SA_SIGINFO handler reads. */
    if (err == EPIPE && t->partial == 0) return SYS_PASS;
    if (err == EPIPE) raise_sigpipe(w, t, sock, c->flags);
    return write_end(t, -err);
}

/* Writes to simulated sockets (net/sim/netsim.h): datagrams are sent by
 * the supervisor; a stream write goes on as for any socket (an address is
 * ignored, as TCP does), unless a reset is to be reported. False: carry on. */
static bool sim_write(struct world *w, struct thread *t, struct wcall *c, enum sys_action *a)
{
    if (t->retry || !netsim_active(w)) return false;
    int copy = fd_lend(w, t, c->fd, &c->st);
    if (copy < 0) return false;
    struct simsock *s = S_ISSOCK(c->st.st_mode) ? netsim_lookup(w, c->st.st_ino) : NULL;
    if (!s) {
        c->probed = true;
        c->copy = copy;
        return false;
    }
    if (s->type == SOCK_STREAM && !c->err && !s->conn && !s->connected && !s->had_conn && !s->so_error) {
        /* No connection (never connected, listening, dissolved): EPIPE,
         * with SIGPIPE unless MSG_NOSIGNAL, as tcp_sendmsg does. */
        fd_return(t, copy);
        raise_sigpipe(w, t, true, c->flags);
        *a = emulate(t, -EPIPE);
        return true;
    }
    if (s->type == SOCK_DGRAM && !c->err && (c->flags & MSG_OOB) && c->b.total <= 0xffff) {
        fd_return(t, copy);
        *a = emulate(t, -EOPNOTSUPP);   /* UDP has no urgent data */
        return true;
    }
    if (c->err || (s->so_error && s->connected)) {
        /* A reset (TCP) or a refusal (connected UDP) is reported once. */
        long r = c->err ? c->err : -s->so_error;
        if (!c->err) s->so_error = 0;
        fd_return(t, copy);
        *a = emulate(t, r);
        return true;
    }
    if (s->type == SOCK_DGRAM) {
        long r = sock_send_dgram(w, t, s, copy, c->b.iov, c->b.n, c->addr, c->addrlen);
        fd_return(t, copy);
        *a = emulate(t, r);
        return true;
    }
    /* MSG_MORE or TCP_CORK: its bytes wait for more (relay.c). */
    netsim_hold(w, s, netsim_opt_int(s, IPPROTO_TCP, TCP_CORK) ? HOLD_CORK : c->flags & MSG_MORE ? HOLD_MORE : HOLD_NONE);
    c->probed = true;           /* a stream: write_run goes on with this probe */
    c->copy = copy;
    c->pass = c->control;
    return false;
}

static enum sys_action write_call(struct world *w, struct thread *t, struct wcall *c)
{
    enum sys_action a;
    return sim_write(w, t, c, &a) ? a : write_run(w, t, c);
}

enum sys_action sys_write(struct world *w, struct thread *t)
{
    struct wcall c;
    wcall_start(&c, (int)ARG0(t), 0);
    c.pass = (ssize_t)ARG2(t) < 0;      /* refused at once */
    ubufs_one(&c.b, ARG1(t), ARG2(t));
    return write_call(w, t, &c);
}

enum sys_action sys_writev(struct world *w, struct thread *t)
{
    struct wcall c;
    wcall_start(&c, (int)ARG0(t), 0);
    c.err = ubufs_vec(&c.b, t, ARG1(t), ARG2(t));
    return write_call(w, t, &c);
}

/* A destination address or ancillary data (SCM_RIGHTS...) would mean
 * something else coming from the supervisor (its mount namespace resolves
 * unix paths, its fd table holds the fds): such sends pass to the kernel.
 * Known gap: one of them on a full unix datagram socket blocks there. */
enum sys_action sys_sendto(struct world *w, struct thread *t)
{
    struct wcall c;
    wcall_start(&c, (int)ARG0(t), (int)ARG3(t));
    c.pass = ARG4(t) && (int)ARG5(t) != 0;
    c.addr = ARG4(t);
    c.addrlen = (uint32_t)ARG5(t);
    if (c.pass) autobind_before_send(w, t, c.fd);
    ubufs_one(&c.b, ARG1(t), ARG2(t) > INT_MAX ? INT_MAX : ARG2(t));
    return write_call(w, t, &c);
}

enum sys_action sys_sendmsg(struct world *w, struct thread *t)
{
    struct wcall c;
    wcall_start(&c, (int)ARG0(t), (int)ARG2(t));
    struct msghdr m;
    if (mem_read(t->tid, ARG1(t), &m, sizeof m) != 0) c.err = -EFAULT;
    else if (m.msg_iovlen > UIO_MAX) c.err = -EMSGSIZE;
    else c.err = ubufs_vec(&c.b, t, (uint64_t)(uintptr_t)m.msg_iov, m.msg_iovlen);
    if (!c.err && m.msg_name && m.msg_namelen) {
        c.pass = true;
        c.addr = (uint64_t)(uintptr_t)m.msg_name;
        c.addrlen = m.msg_namelen;
        autobind_before_send(w, t, c.fd);
    }
    if (!c.err && m.msg_control && m.msg_controllen) c.pass = c.control = true;
    return write_call(w, t, &c);
}

/* ---- positional writes ---- */

/* Where a pwrite, pwritev or pwritev2 writes (over-approximated: what it
 * asks for), for the next fsync. */
static void note_pwrite(struct thread *t, int copy, const struct stat *st)
{
    struct machine *m = t->proc->m;
    long nr = SYSNR(t);
    int64_t off = (int64_t)ARG3(t);
    if (nr == SYS_pwrite64) {
        disk_file_written(m, st, (uint64_t)off, ARG2(t));
        return;
    }
    struct iovec iov[64];
    unsigned long n = ARG2(t);
    uint64_t len = 0;
    if (n > 64 || mem_read(t->tid, ARG1(t), iov, n * sizeof *iov) != 0 ||
        (nr == SYS_pwritev2 && (ARG5(t) & RWF_APPEND))) {
        disk_file_changed(m, st);
        return;
    }
    for (unsigned long i = 0; i < n; i++) len += iov[i].iov_len;
    if (nr == SYS_pwritev2 && off == -1) off = lseek(copy, 0, SEEK_CUR);
    if (off < 0) disk_file_changed(m, st);
    else disk_file_written(m, st, (uint64_t)off, len);
}

/* pwrite and pwritev: regular files, passed to the kernel; the file's
 * time is noted, and an O_SYNC fd needs the call's exit. */
enum sys_action sys_pwrite(struct world *w, struct thread *t)
{
    struct stat st;
    int fd = (int)ARG0(t), copy = fd_probe(w, t, fd, &st);
    if (copy < 0) return SYS_PASS;
    if (!S_ISREG(st.st_mode)) {
        close(copy);
        return SYS_PASS;
    }
    int fl = t->proc->m->sync_opened ? fcntl(copy, F_GETFL) : 0;
    note_pwrite(t, copy, &st);
    ftimes_note_fd(w, t, copy, &st);
    return fl >= 0 && (fl & O_DSYNC) ? disk_sync_write(w, t, fd) : SYS_PASS;
}
