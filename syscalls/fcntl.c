/* Control of open fds: ioctl (the requests that never wait for another
 * party), fcntl (its record locks wait in the supervisor) and flock. */
#include "syscalls/sys.h"
#include "net/sim/netsim.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#define LOCK_TESTS 64               /* F_GETLK probes one lock decision may make */

/* ---- ioctl ---- */

/* Requests that act on the fd alone and never wait for another party. */
static const unsigned int safe_ioctls[] = {
    TCGETS, TCSETS, TCSETSW, TCSETSF, TIOCGWINSZ, TIOCSWINSZ, TIOCGPGRP, TIOCSPGRP, TIOCGSID,
    FIONBIO, FIONREAD /* = SIOCINQ = TIOCINQ */, TIOCOUTQ, FIOCLEX, FIONCLEX, FIOASYNC, TCFLSH,
    TCXONC, TIOCSCTTY, TIOCNOTTY, TIOCGPTN, TIOCSPTLCK, BLKGETSIZE64, FS_IOC_GETFLAGS,
    /* Interface queries: a machine's network namespace is empty, so they
     * find its loopback only (libuuid's uuid1 looks for a MAC address). */
    SIOCGIFCONF, SIOCGIFFLAGS, SIOCGIFHWADDR, SIOCGIFINDEX, SIOCGIFNAME, SIOCGIFMTU, SIOCGIFADDR,
    SIOCGIFNETMASK, SIOCGIFBRDADDR, SIOCGIFDSTADDR, SIOCGIFTXQLEN, SIOCGIFMETRIC,
};

enum sys_action sys_ioctl(struct world *w, struct thread *t)
{
    unsigned int req = (unsigned int)ARG1(t);   /* Linux takes the request as an unsigned int */
    /* Reflinks depend on the host's file system (xfs and btrfs share
     * extents, ext4 cannot): refused as ext4 and overlayfs on it refuse
     * them, so cp falls back to copying, the same on every host. */
    if (req == FICLONE || req == FICLONERANGE || req == FIDEDUPERANGE) return emulate(t, -EOPNOTSUPP);
    if (req == FIONBIO) return sock_nonblock_call(w, t);
    if (req == TIOCOUTQ /* = SIOCOUTQ */ || req == SIOCOUTQNSD) {
        /* A simulated TCP socket's queue is the simulation's, not the
         * unix socket's underneath (whose count is the kernel's buffer
         * sizes); a UDP socket has no SIOCOUTQNSD. Others: the kernel's. */
        struct simsock *s = sock_of(w, t, (int)ARG0(t), NULL);
        if (!s) return SYS_PASS;
        if (req == SIOCOUTQNSD && s->type != SOCK_STREAM) return emulate(t, -ENOTTY);
        long q = netsim_outq(s, req == SIOCOUTQNSD);
        if (q < 0) return emulate(t, q);
        int v = (int)q;
        return emulate(t, mem_write(t->tid, ARG2(t), &v, sizeof v) != 0 ? -EFAULT : 0);
    }
    for (size_t i = 0; i < sizeof safe_ioctls / sizeof *safe_ioctls; i++)
        if (safe_ioctls[i] == req) return SYS_PASS;
    return SYS_FENCE;
}

/* ---- fcntl: waiting record locks ---- */

/* The byte range [*start, *end] of a struct flock, as Linux computes it
 * (flock_to_posix_lock); the copy shares the tracee's file position. */
static int lock_range(int copy, const struct flock *l, off_t *start, off_t *end)
{
    struct stat st;
    off_t base;
    switch (l->l_whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = lseek(copy, 0, SEEK_CUR); break;
    case SEEK_END: base = fstat(copy, &st) == 0 ? st.st_size : -1; break;
    default: return -1;
    }
    if (base < 0 || l->l_start > INT64_MAX - base || base + l->l_start < 0) return -1;
    off_t s = base + l->l_start, e = INT64_MAX;
    if (l->l_len > 0) {
        if (l->l_len - 1 > INT64_MAX - s) return -1;
        e = s + l->l_len - 1;
    } else if (l->l_len < 0) {
        e = s - 1;
        s += l->l_len;
        if (s < 0) return -1;
    }
    *start = s;
    *end = e;
    return 0;
}

/* Whether a process lock of `type` on [start, end] conflicts with a lock of
 * another owner. F_GETLK from the supervisor also reports the tracee's own
 * locks (l_pid == self), which never conflict with its request: the test
 * goes on around them. Known gap: another owner's lock that F_GETLK hides
 * behind the tracee's own on the same bytes (two shared locks, then an
 * upgrade) is missed, and the kernel waits. Too many pieces: wait, and the
 * ready check tests again. */
static bool lock_conflict(int copy, short type, off_t start, off_t end, pid_t self, int *budget)
{
    if (start > end) return false;
    if ((*budget)-- <= 0) return true;
    struct flock q = { .l_type = type, .l_whence = SEEK_SET, .l_start = start,
                       .l_len = end == INT64_MAX ? 0 : end - start + 1 };
    if (fcntl(copy, F_GETLK, &q) != 0 || q.l_type == F_UNLCK) return false;
    if (q.l_pid != self) return true;
    off_t cs = q.l_start, ce = q.l_len ? q.l_start + q.l_len - 1 : INT64_MAX;
    return (cs > start && lock_conflict(copy, type, start, cs - 1, self, budget)) ||
           (ce < end && lock_conflict(copy, type, ce + 1, end, self, budget));
}

/* Whether t's F_SETLKW or F_OFD_SETLKW would wait now. A request the kernel
 * refuses at once (bad struct, wrong access mode, bad range) does not. */
static bool lock_would_wait(struct thread *t, int copy)
{
    struct flock want;
    if (mem_read(t->tid, ARG2(t), &want, sizeof want) != 0) return false;
    int fl = fcntl(copy, F_GETFL), acc = fl & O_ACCMODE;
    if (fl < 0 || !((want.l_type == F_RDLCK && acc != O_WRONLY) || (want.l_type == F_WRLCK && acc != O_RDONLY)))
        return false;
    if ((int)ARG1(t) == F_OFD_SETLKW) {
        /* The copy is the tracee's open file description, the owner of
         * OFD locks: this test is exact. */
        struct flock q = want;
        return fcntl(copy, F_OFD_GETLK, &q) == 0 && q.l_type != F_UNLCK;
    }
    off_t start, end;
    int budget = LOCK_TESTS;
    return lock_range(copy, &want, &start, &end) == 0 &&
           lock_conflict(copy, want.l_type, start, end, t->proc->pid, &budget);
}

static bool lock_ready(struct world *w, struct thread *t)
{
    (void)w;
    return t->copy_fd < 0 || !lock_would_wait(t, t->copy_fd);
}

/* F_SETLKW and F_OFD_SETLKW wait in the supervisor until the lock would be
 * granted, then go to the kernel, which takes it at once. A lock deadlock
 * shows as a simulation deadlock, not EDEADLK. Other commands never wait. */
enum sys_action sys_fcntl(struct world *w, struct thread *t)
{
    int cmd = (int)ARG1(t), fd = (int)ARG0(t);
    if (cmd == F_SETFL) return sock_nonblock_call(w, t);
    if (cmd != F_SETLKW && cmd != F_OFD_SETLKW) return SYS_PASS;
    int copy = fd_copy(w, t, fd);
    if (copy < 0) return fd_copy_error(w, t, fd);
    if (!lock_would_wait(t, copy)) {
        close(copy);
        return SYS_PASS;
    }
    hold_copy(t, copy, 0);
    return block(t, UINT64_MAX, lock_ready);
}

/* flock without LOCK_NB would sleep in the kernel. flock locks belong to the
 * open file description, which the supervisor's copy shares, so trying the
 * lock from the copy takes it for the tracee's file exactly. */
static bool flock_ready(struct world *w, struct thread *t)
{
    if (t->call.flock.locked) return true;
    if (flock(t->copy_fd, (int)ARG1(t) | LOCK_NB) == 0) t->call.flock.locked = true;
    return t->call.flock.locked;
}

enum sys_action sys_flock(struct world *w, struct thread *t)
{
    if (t->retry) return t->call.flock.locked ? emulate(t, 0) : block(t, UINT64_MAX, flock_ready);
    int op = (int)ARG1(t);
    if (op & LOCK_NB) return SYS_PASS;
    int copy = fd_copy(w, t, (int)ARG0(t));
    if (copy < 0) return SYS_PASS;                      /* EBADF from the kernel */
    if (flock(copy, op | LOCK_NB) == 0) { close(copy); return emulate(t, 0); }
    int e = errno;
    if (e != EWOULDBLOCK) { close(copy); return emulate(t, -e); }
    t->copy_fd = copy;
    t->call.flock.locked = false;
    return block(t, UINT64_MAX, flock_ready);
}
