/* sendfile, splice, copy_file_range: copies the kernel makes between fds.
 *
 * What they read from a random device (/dev/urandom, /dev/random,
 * /dev/hwrng) must be the machine's stream, as a read's is (rw.c): when the
 * kernel would move bytes, the supervisor draws them and writes them into
 * the output through its copy of the fd, as the kernel would (a pipe takes
 * what fits, once; a socket, a file or a device all of it), and the call is
 * emulated. Where the kernel would refuse the call (a bad fd or offset
 * pointer, an output opened O_APPEND, splice into a non-pipe,
 * copy_file_range from a device), it makes the call and reads nothing.
 * Otherwise the copy is the kernel's, and the output file's times are
 * noted (ftimes.c). */
#include "syscalls/sys.h"
#include "net/sim/netsim.h"
#include "world/tracer.h"
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RW_MAX 0x7ffff000UL         /* MAX_RW_COUNT: Linux's cap on one transfer */
#define TRANSFER_STEP (1UL << 20)   /* bytes drawn and written at once */
#define SOCKET_STEP (16UL << 12)
#define SPLICE_FLAGS 0x0f           /* SPLICE_F_ALL: MOVE, NONBLOCK, MORE, GIFT */

/* One sendfile or splice from a random device, as its handler reads it. */
struct transfer {
    int in_copy;        /* the device */
    int out_fd;
    size_t count;
    bool to_pipe_only;  /* splice: the output must be a pipe */
    bool nonblock;      /* SPLICE_F_NONBLOCK */
};

/* What a pipe can take now (its size less what it holds). */
static size_t pipe_room(int fd)
{
    int size = fcntl(fd, F_GETPIPE_SZ), held = 0;
    if (size <= 0 || ioctl(fd, FIONREAD, &held) != 0 || held >= size) return 0;
    return (size_t)(size - held);
}

/* The end of a transfer: what moved so far, else err (-errno). */
static enum sys_action transfer_end(struct thread *t, long err)
{
    long r = t->partial > 0 ? t->partial : err;
    t->partial = 0;
    return emulate(t, r);
}

static enum sys_action random_transfer(struct world *w, struct thread *t, const struct transfer *x)
{
    bool again = t->retry;
    thread_drop_copy(t);            /* the one a blocked attempt held */
    if (!again) t->partial = 0;
    int in_fl = fcntl(x->in_copy, F_GETFL);
    close(x->in_copy);
    struct stat st;
    int out = fd_probe(w, t, x->out_fd, &st);
    if (out < 0) return again && errno == EBADF ? transfer_end(t, -EBADF) : fd_copy_error(w, t, x->out_fd);
    int fl = fcntl(out, F_GETFL);
    bool pipe = S_ISFIFO(st.st_mode), sock = S_ISSOCK(st.st_mode);
    bool moves = x->count > 0 && in_fl >= 0 && !(in_fl & O_PATH) && (in_fl & O_ACCMODE) != O_WRONLY &&
                 fl >= 0 && !(fl & O_PATH) && (fl & O_ACCMODE) != O_RDONLY &&
                 (x->to_pipe_only ? pipe : pipe || !(fl & O_APPEND));
    if (!moves) {
        close(out);
        return again ? transfer_end(t, -EBADF) : SYS_PASS;     /* the kernel's error */
    }
    struct simsock *s = sock ? netsim_lookup(w, st.st_ino) : NULL;
    if (s && s->type == SOCK_DGRAM) {   /* datagrams are sent by the network model */
        close(out);
        return SYS_FENCE;
    }
    bool can_fill = pipe || sock;       /* outputs that can be full */
    size_t count = x->count < RW_MAX ? x->count : RW_MAX;
    while ((size_t)t->partial < count) {
        size_t want = count - (size_t)t->partial;
        if (want > TRANSFER_STEP) want = TRANSFER_STEP;
        if (pipe && want > pipe_room(out)) want = pipe_room(out);
        /* The kernel moves 16 pages at a time through a socket. */
        if (sock && want > SOCKET_STEP) want = SOCKET_STEP;
        ssize_t k = -1;
        int err = EAGAIN;
        if (want) {
            char *buf = malloc(want);
            if (!buf) abort();
            random_fill(w, t, buf, want);
            k = can_fill ? fd_put(out, sock, fl, buf, want, 0) : write(out, buf, want);
            err = k < 0 ? errno : 0;
            free(buf);
        }
        if (k > 0) {
            t->partial += k;
            if (pipe) break;            /* a pipe takes one transfer, as the kernel's */
            continue;
        }
        if (!can_fill || err != EAGAIN) {
            close(out);
            if (err == EPIPE) raise_sigpipe(w, t, sock, 0);
            return transfer_end(t, k == 0 ? 0 : -err);
        }
        if (x->nonblock || (fl & O_NONBLOCK)) {
            close(out);
            return transfer_end(t, -EAGAIN);
        }
        hold_copy(t, out, POLLOUT);     /* full: wait for room, go on then */
        return block(t, UINT64_MAX, fd_ready_check);
    }
    close(out);
    return transfer_end(t, 0);
}

/* A random device as the input of a copy the kernel would make: the
 * device's copy, with *st; -1 (nothing to emulate) otherwise. */
static int random_input(struct world *w, struct thread *t, int fd)
{
    struct stat st;
    int copy = fd_probe(w, t, fd, &st);
    if (copy >= 0 && !random_dev(&st)) {
        close(copy);
        return -1;
    }
    return copy;
}

/* Whether a tracee's offset pointer can be read (the kernel reads it first,
 * and fails the call with EFAULT). */
static bool offset_readable(struct thread *t, uint64_t addr)
{
    int64_t off;
    return !addr || mem_read(t->tid, addr, &off, sizeof off) == 0;
}

/* Into a simulated TCP socket, a copy sends what waits, unless the socket
 * is corked or the splice says more follows (SPLICE_F_MORE): relay.c. */
static void copy_pushes(struct world *w, struct thread *t, int out_fd, bool more)
{
    struct stat st;
    int copy = netsim_active(w) ? fd_probe(w, t, out_fd, &st) : -1;
    if (copy < 0) return;
    close(copy);
    struct simsock *s = S_ISSOCK(st.st_mode) ? netsim_lookup(w, st.st_ino) : NULL;
    if (s && s->type == SOCK_STREAM)
        netsim_hold(w, s, netsim_opt_int(s, IPPROTO_TCP, TCP_CORK) ? HOLD_CORK : more ? HOLD_MORE : HOLD_NONE);
}

/* sendfile(out, in, offset, count); splice(in, off_in, out, off_out, len,
 * flags); copy_file_range(in, off_in, out, off_out, len, flags). A random
 * device's position does not move, nor does an offset given for it (as on
 * Linux). */
enum sys_action sys_fd_copy(struct world *w, struct thread *t)
{
    long nr = SYSNR(t);
    bool sendfile = nr == SYS_sendfile;
    int in_fd = (int)(sendfile ? ARG1(t) : ARG0(t)), out_fd = (int)(sendfile ? ARG0(t) : ARG2(t));
    if (nr == SYS_copy_file_range) return ftimes_fd_note(w, t, out_fd);    /* a device: EINVAL */
    if (t->retry) {
        struct transfer again = { -1, out_fd, sendfile ? ARG3(t) : ARG4(t), !sendfile,
                                  !sendfile && (ARG5(t) & SPLICE_F_NONBLOCK) };
        again.in_copy = fd_copy(w, t, in_fd);
        if (again.in_copy < 0) return transfer_end(t, -EBADF);
        return random_transfer(w, t, &again);
    }
    copy_pushes(w, t, out_fd, !sendfile && (ARG5(t) & SPLICE_F_MORE));
    bool offsets_ok = sendfile ? offset_readable(t, ARG2(t))
                               : !ARG3(t) && offset_readable(t, ARG1(t)) && !(ARG5(t) & ~(uint64_t)SPLICE_FLAGS);
    int in = offsets_ok ? random_input(w, t, in_fd) : -1;
    if (in < 0) return ftimes_fd_note(w, t, out_fd);
    struct transfer x = { in, out_fd, sendfile ? ARG3(t) : ARG4(t), !sendfile,
                          !sendfile && (ARG5(t) & SPLICE_F_NONBLOCK) };
    return random_transfer(w, t, &x);
}
