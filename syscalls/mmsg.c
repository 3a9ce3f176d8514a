/* sendmmsg and recvmmsg. On a simulated UDP socket the supervisor makes
 * them, message by message, as sendmsg and recvmsg would go: the datagrams
 * are dsim's anyway. On any other socket only a call that cannot wait
 * (O_NONBLOCK, MSG_DONTWAIT) passes to the kernel; a blocking one could
 * wait there, so it is a fence, as is ancillary data. */
#include "syscalls/sys.h"
#include "net/sim/netsim.h"
#include "world/tracer.h"
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define MMSG_MAX 1024       /* Linux caps vlen at UIO_MAXIOV */
#define IOV_MAX_ 1024

/* The call's socket: a copy, whether it is non-blocking, and its simulated
 * socket if it has one. */
static struct simsock *mmsg_sock(struct world *w, struct thread *t, int *copy, bool *nonblock)
{
    struct stat st;
    *copy = fd_probe(w, t, (int)ARG0(t), &st);
    if (*copy < 0) return NULL;
    int fl = fcntl(*copy, F_GETFL);
    *nonblock = fl >= 0 && (fl & O_NONBLOCK);
    return S_ISSOCK(st.st_mode) && netsim_active(w) ? netsim_lookup(w, st.st_ino) : NULL;
}

/* What to do with a call that is not on a simulated UDP socket. */
static enum sys_action not_simulated(int copy, bool nonblock, int flags)
{
    close(copy);
    return nonblock || (flags & MSG_DONTWAIT) ? SYS_PASS : SYS_FENCE;
}

/* A pending error of a connected socket is reported once. */
static bool pending_error(struct simsock *s, long *err)
{
    if (!s->so_error || !s->connected) return false;
    *err = -s->so_error;
    s->so_error = 0;
    return true;
}

static int read_iov(struct thread *t, const struct msghdr *m, struct iovec *iov)
{
    if (m->msg_iovlen > IOV_MAX_) return -EMSGSIZE;
    if (m->msg_iovlen && mem_read(t->tid, (uint64_t)(uintptr_t)m->msg_iov, iov, m->msg_iovlen * sizeof *iov) != 0)
        return -EFAULT;
    return 0;
}

static bool has_control(struct thread *t, uint64_t vec, unsigned vlen)
{
    for (unsigned i = 0; i < vlen; i++) {
        struct mmsghdr mh;
        if (mem_read(t->tid, vec + i * sizeof mh, &mh, sizeof mh) != 0) return false;
        if (mh.msg_hdr.msg_controllen) return true;
    }
    return false;
}

enum sys_action sys_sendmmsg(struct world *w, struct thread *t)
{
    int copy, flags = (int)ARG3(t);
    bool nonblock;
    struct simsock *s = mmsg_sock(w, t, &copy, &nonblock);
    if (copy < 0) return SYS_PASS;                  /* EBADF and the like: the kernel's */
    if (!s) return not_simulated(copy, nonblock, flags);
    if (s->type != SOCK_DGRAM) { close(copy); return SYS_FENCE; }      /* TCP: not followed */
    unsigned vlen = ARG2(t) > MMSG_MAX ? MMSG_MAX : (unsigned)ARG2(t);
    uint64_t vec = ARG1(t);
    if (has_control(t, vec, vlen)) { close(copy); return SYS_FENCE; }
    long sent = 0, err = 0;
    static struct iovec iov[IOV_MAX_];
    if (!pending_error(s, &err)) {
        for (unsigned i = 0; i < vlen; i++) {
            uint64_t at = vec + i * sizeof(struct mmsghdr);
            struct mmsghdr mh;
            if (mem_read(t->tid, at, &mh, sizeof mh) != 0) { err = -EFAULT; break; }
            if ((err = read_iov(t, &mh.msg_hdr, iov)) != 0) break;
            long r = sock_send_dgram(w, t, s, copy, iov, mh.msg_hdr.msg_iovlen,
                                     (uint64_t)(uintptr_t)mh.msg_hdr.msg_name, mh.msg_hdr.msg_namelen);
            if (r < 0) { err = r; break; }
            unsigned len = (unsigned)r;
            mem_write(t->tid, at + offsetof(struct mmsghdr, msg_len), &len, sizeof len);
            sent++;
        }
    }
    close(copy);
    return emulate(t, sent ? sent : err);
}

/* Takes one datagram off the copy into message `at`: 1, 0 if none is
 * there, or -errno. */
static long take_one(struct thread *t, struct simsock *s, int copy, uint64_t at, int flags)
{
    static char buf[65536];
    static struct iovec iov[IOV_MAX_];
    struct mmsghdr mh;
    if (mem_read(t->tid, at, &mh, sizeof mh) != 0) return -EFAULT;
    long r = read_iov(t, &mh.msg_hdr, iov);
    if (r) return r;
    ssize_t n = recv(copy, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC | (flags & MSG_PEEK));
    if (n < 0) return errno == EAGAIN ? 0 : -errno;
    size_t put = 0;
    for (size_t i = 0; i < mh.msg_hdr.msg_iovlen && put < (size_t)n; i++) {
        size_t k = iov[i].iov_len < (size_t)n - put ? iov[i].iov_len : (size_t)n - put;
        if (k && mem_write(t->tid, (uint64_t)(uintptr_t)iov[i].iov_base, buf + put, k) != 0) return -EFAULT;
        put += k;
    }
    struct saddr src;
    if (netsim_dgram_source(s, !(flags & MSG_PEEK), &src) && mh.msg_hdr.msg_name)
        sock_put_addr(t, s, &src, (uint64_t)(uintptr_t)mh.msg_hdr.msg_name,
                      at + offsetof(struct mmsghdr, msg_hdr.msg_namelen));
    int mflags = put < (size_t)n ? MSG_TRUNC : 0;
    size_t nocontrol = 0;
    unsigned len = (unsigned)put;
    mem_write(t->tid, at + offsetof(struct mmsghdr, msg_hdr.msg_controllen), &nocontrol, sizeof nocontrol);
    mem_write(t->tid, at + offsetof(struct mmsghdr, msg_hdr.msg_flags), &mflags, sizeof mflags);
    mem_write(t->tid, at + offsetof(struct mmsghdr, msg_len), &len, sizeof len);
    return 1;
}

/* recvmmsg as Linux makes it: it waits for the first datagram and, unless
 * MSG_WAITFORONE, for each next one until vlen have come; the timeout is
 * only looked at after a datagram (the BUGS of recvmmsg(2)). What has come
 * is kept in t->partial across waits, and returned if a signal ends them. */
enum sys_action sys_recvmmsg(struct world *w, struct thread *t)
{
    int copy, flags = (int)ARG3(t);
    bool nonblock;
    struct simsock *s = mmsg_sock(w, t, &copy, &nonblock);
    if (copy < 0) return SYS_PASS;
    if (!s) return not_simulated(copy, nonblock, flags);
    if (s->type != SOCK_DGRAM || (flags & MSG_ERRQUEUE)) { close(copy); return SYS_FENCE; }
    long err;
    if (!t->retry) {
        t->partial = 0;
        t->call.recvmmsg.deadline = UINT64_MAX;     /* the timeout's deadline: none */
        if (ARG4(t)) {
            uint64_t ns;
            int r = read_timespec(t, ARG4(t), &ns);
            if (r) { close(copy); return emulate(t, r); }
            t->call.recvmmsg.deadline = w->now + ns;
        }
        if (pending_error(s, &err)) { close(copy); return emulate(t, err); }
    }
    uint64_t deadline = t->call.recvmmsg.deadline;
    unsigned vlen = ARG2(t) > MMSG_MAX ? MMSG_MAX : (unsigned)ARG2(t);
    bool dontwait = nonblock || (flags & MSG_DONTWAIT) || ((flags & MSG_WAITFORONE) && t->partial > 0);
    long got = t->partial;
    while ((unsigned long)got < vlen) {
        long r = take_one(t, s, copy, ARG1(t) + (uint64_t)got * sizeof(struct mmsghdr), flags);
        if (r < 0) {
            if (got) break;
            close(copy);
            return emulate(t, r);
        }
        if (r == 0) {
            if (dontwait) break;
            t->partial = got;
            hold_copy(t, copy, POLLIN);
            return block(t, UINT64_MAX, fd_ready_check);
        }
        got++;
        if (flags & MSG_WAITFORONE) dontwait = true;
        if (deadline <= w->now) break;
    }
    close(copy);
    t->partial = 0;
    return emulate(t, got ? got : -EAGAIN);
}
