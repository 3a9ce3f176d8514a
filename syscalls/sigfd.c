/* signalfd. The kernel makes the fd, keeps its mask (a second signalfd()
 * on it changes the mask), reads it, and passes it on at fork and exec: a
 * read takes the reading thread's own pending signals, exactly. What dsim
 * must add is readiness. A signalfd polls readable when the thread that
 * polls it has a signal of its mask pending, and dsim polls on copies in
 * the supervisor (poll, select, epoll, a blocking read), where the kernel
 * would look at the supervisor's signals, and, worse, an epoll check would
 * drop the signalfd from the epoll's ready list.
 *
 * So on a machine that ever made a signalfd, every readiness check dsim
 * makes for a thread runs with the supervisor's signals made to match the
 * thread's: the supervisor blocks every signal, raises on its own thread
 * those pending for the tracee thread that a signalfd of the machine could
 * watch, makes the check, and takes them back. A signal of dsim's own that
 * a signalfd watches (the watchdog's SIGALRM, an interrupt) must not show
 * through: the check waits until none is pending, is made again if one came
 * during it, and an epoll_wait, which consumes events and so cannot be made
 * again, runs with the watchdog's timer paused. */
#include "syscalls/sys.h"
#include "world/tracer.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define BIT(sig) (1ULL << ((sig) - 1))
#define NOT_WATCHABLE (BIT(SIGKILL) | BIT(SIGSTOP))

enum sys_action sys_signalfd(struct world *w, struct thread *t)
{
    (void)w;
    uint64_t mask;
    /* The kernel checks the size and the mask itself; a mask it refuses
     * only widens the set of signals mirrored, which is harmless. */
    if (ARG2(t) == sizeof mask && mem_read(t->tid, ARG1(t), &mask, sizeof mask) == 0)
        t->proc->m->sigfd_mask |= mask & ~NOT_WATCHABLE;
    return SYS_PASS;
}

bool sigfd_read(struct world *w, struct thread *t, int fd, const struct stat *st)
{
    (void)w;
    if (!t->proc->m->sigfd_mask || (st->st_mode & S_IFMT)) return false;     /* anon inodes have no type */
    char link[64], target[32];
    snprintf(link, sizeof link, "/proc/%d/fd/%d", t->tid, fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) return false;
    target[n] = 0;
    return !strcmp(target, "anon_inode:[signalfd]");
}

/* The records a signalfd read gave, each mended as a handler's siginfo
 * (signal.c siginfo_mend). */
void sigfd_taken(struct world *w, struct thread *t, long result)
{
    struct signalfd_siginfo r;
    for (long off = 0; off + (long)sizeof r <= result; off += (long)sizeof r) {
        uint64_t at = ARG1(t) + (uint64_t)off;
        if (mem_read(t->tid, at, &r, sizeof r) != 0) return;
        siginfo_t si;
        memset(&si, 0, sizeof si);
        si.si_signo = (int)r.ssi_signo, si.si_code = r.ssi_code, si.si_pid = (pid_t)r.ssi_pid;
        si.si_uid = r.ssi_uid, si.si_status = r.ssi_status;
        si.si_utime = (clock_t)r.ssi_utime, si.si_stime = (clock_t)r.ssi_stime;
        if (!siginfo_mend(w, t->proc, &si)) continue;
        r.ssi_code = si.si_code, r.ssi_pid = (uint32_t)si.si_pid, r.ssi_uid = si.si_uid;
        r.ssi_status = si.si_status, r.ssi_utime = (uint64_t)si.si_utime, r.ssi_stime = (uint64_t)si.si_stime;
        mem_write(t->tid, at, &r, sizeof r);
    }
}

/* Raw calls: glibc would keep its own two signals out of a mask. */
static void set_mask(uint64_t mask, uint64_t *old)
{
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, old, sizeof mask);
}

static uint64_t own_pending(void)
{
    uint64_t set = 0;
    syscall(SYS_rt_sigpending, &set, sizeof set);
    return set;
}

static void raise_own(uint64_t set)
{
    if (!set) return;
    pid_t pid = getpid(), tid = gettid();
    for (int sig = 1; sig <= 64; sig++)
        if (set & BIT(sig)) syscall(SYS_tgkill, pid, tid, sig);
}

/* Takes back one of each raised signal: the thread's own queue, where they
 * went, is searched first, so a like signal sent to dsim meanwhile stays. */
static void take_back(uint64_t set)
{
    if (!set) return;
    struct timespec zero = { 0, 0 };
    for (int sig = 1; sig <= 64; sig++) {
        uint64_t one = BIT(sig);
        if (set & one) syscall(SYS_rt_sigtimedwait, &one, NULL, &zero, sizeof one);
    }
}

struct check {
    bool epoll;
    struct pollfd *p;
    unsigned long n;
    int epfd, max;
    struct epoll_event *ev;
};

static int check_now(const struct check *c)
{
    int r;
    if (c->epoll) while ((r = epoll_wait(c->epfd, c->ev, c->max, 0)) < 0 && errno == EINTR) {}
    else while ((r = poll(c->p, (nfds_t)c->n, 0)) < 0 && errno == EINTR) {}
    return r;
}

static int mirrored(struct world *w, struct thread *t, const struct check *c)
{
    (void)w;
    uint64_t watch = t->proc->m->sigfd_mask;
    if (!watch) return check_now(c);
    uint64_t want = thread_pending_signals(t) & watch;
    /* Nothing to mirror, and no signal of dsim's own that could show
     * through (an interrupt ends the run anyway): the plain check. */
    if (!want && !(watch & BIT(SIGALRM))) return check_now(c);
    /* SIGCHLD stays open unless mirrored: dsim's default ignores it, so it
     * is dropped at once instead of waiting in the way. */
    uint64_t block = ~0ULL & ~(want & BIT(SIGCHLD) ? 0 : BIT(SIGCHLD));
    bool pause = c->epoll && (watch & BIT(SIGALRM));
    static const struct itimerval stopped;
    for (;;) {
        struct itimerval timer;
        uint64_t old;
        if (pause) setitimer(ITIMER_REAL, &stopped, &timer);
        set_mask(block, &old);
        bool clean = !(own_pending() & watch);
        int r = 0;
        uint64_t stray = 0;
        if (clean) {
            raise_own(want);
            r = check_now(c);
            stray = own_pending() & watch & ~want;
            take_back(want);
        }
        set_mask(old, NULL);            /* dsim's own signal, if any, is handled here */
        if (pause) setitimer(ITIMER_REAL, &timer, NULL);
        if (clean && (c->epoll || !stray)) return r;
    }
}

int sig_poll(struct world *w, struct thread *t, struct pollfd *p, unsigned long n)
{
    struct check c = { .epoll = false, .p = p, .n = n };
    return mirrored(w, t, &c);
}

int sig_epoll_wait(struct world *w, struct thread *t, int epfd, struct epoll_event *ev, int max)
{
    struct check c = { .epoll = true, .epfd = epfd, .ev = ev, .max = max };
    return mirrored(w, t, &c);
}
