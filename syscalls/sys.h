/* Syscall handlers: one family per file, one dispatch table as data. */
#ifndef DSIM_SYS_H
#define DSIM_SYS_H
#include "world/world.h"
#include "world/tracer.h"
#include "disk/ftimes.h"
#include <errno.h>
#include <signal.h>

enum sys_action {
    SYS_EMULATE,    /* skip the call; the tracee sees t->regs.rax */
    SYS_PASS,       /* let the kernel run it; no exit stop */
    SYS_PASS_EXIT,  /* let the kernel run it and call t->on_exit with the result */
    SYS_BLOCK,      /* keep the thread stopped; retried when it can run */
    SYS_FENCE,      /* cannot be made deterministic: the run stops */
};

typedef enum sys_action (*sys_handler)(struct world *w, struct thread *t);

/* Interruption by a signal: what Linux does when a handler runs. */
enum sys_restart { RS_EINTR, RS_RESTART_SA /* restarts under SA_RESTART */ };

/* What dsim does with a syscall (table.c). */
enum sys_support { SUP_FENCE, SUP_EMULATED, SUP_PASSED, SUP_REFUSED, SUP_UNTRAPPED, SUP_EXEC_ONLY, SUP_CPUID_ONLY };

struct sys_entry {
    const char *name;
    sys_handler handler;     /* NULL: unknown, a fence */
    const char *args;        /* per argument: d int, l long, x hex, f fd, s path, p pointer, F futex op,
                              * I int or pointer by request (ioctl, fcntl: an address prints as p) */
    enum sys_restart restart;
    enum sys_support support;
    const char *note;        /* a limit or a fence within it, for the listing */
};

extern const struct sys_entry sys_table[];
extern const unsigned sys_table_len;
const struct sys_entry *sys_lookup(long nr);
const char *sys_support_name(enum sys_support s);

static inline enum sys_action emulate(struct thread *t, long result)
{
    t->regs.rax = (unsigned long long)result;
    return SYS_EMULATE;
}
/* Block until deadline (UINT64_MAX: none), ready() or an explicit wake. */
static inline enum sys_action block(struct thread *t, uint64_t deadline, ready_fn ready)
{
    t->deadline = deadline;
    t->ready = ready;
    t->unready_epoch = UINT64_MAX;
    t->ready_epoch = 0;
    t->woken = false;
    return SYS_BLOCK;
}

/* Generic handlers (table.c). */
enum sys_action sys_pass(struct world *w, struct thread *t);
enum sys_action sys_enosys(struct world *w, struct thread *t);
enum sys_action sys_fence(struct world *w, struct thread *t);

/* fdwait.c: copies of tracee fds (fd_copy is world/tracer.h's), and
 * waiting on them. A copy of fd and its stat, or -1 with errno. */
struct stat;
int fd_probe(struct world *w, struct thread *t, int fd, struct stat *st);
bool fd_ready_check(struct world *w, struct thread *t);
/* The thread keeps copy while it waits for events on it (fd_ready_check). */
void hold_copy(struct thread *t, int copy, short events);
void thread_drop_copy(struct thread *t);
/* The fd (the tracee's number) whose copy a blocked thread holds, where its
 * call names it first (reads, writes, receives, accepts, epoll waits); -1
 * if it holds none or another's. thread_rehold copies that fd again for
 * the thread, or each fd a blocked poll or select watches (poll_rehold,
 * poll.c): a warm start's seed, the copy process's, not the template's it
 * held; 0 or -1. */
int thread_held_fd(const struct thread *t);
int thread_rehold(struct world *w, struct thread *t);
int poll_rehold(struct world *w, struct thread *t);
/* Whether a ready() tests only fd readiness (fd_ready_check, poll's and
 * select's): its answer changes only when io_epoch moves (run.c). */
bool ready_on_fds(ready_fn ready);
/* A thread waiting on fds was found not ready now: noted, so that
 * fd_still_unready can answer without a poll while nothing that could
 * change it happened: io_epoch has not moved, or (one simulated socket)
 * moved only by calm steps and by arrivals on other connections. */
void fd_note_unready(struct world *w, struct thread *t);
bool fd_still_unready(const struct world *w, const struct thread *t);
/* A copy that could not be made: the kernel reports a bad fd; any other
 * failure stops the run. */
enum sys_action fd_copy_error(struct world *w, struct thread *t, int fd);
/* dsim's own stdout and stderr (dsim exec): outside the simulation. */
bool fd_external(const struct world *w, const struct stat *st);
/* When a call that must wait on a socket gives up (its SO_RCVTIMEO or
 * SO_SNDTIMEO, name), on virtual time; UINT64_MAX if none. */
uint64_t sock_deadline(struct world *w, struct thread *t, int copy, const struct stat *st, int name);
/* Reads and accepts: the socket layer's answer, or a wait for `events` on
 * the probed copy (consumed) if may_wait. */
/* fcntl F_SETFL, ioctl FIONBIO: a simulated socket's O_NONBLOCK (socket.c). */
enum sys_action sock_nonblock_call(struct world *w, struct thread *t);
enum sys_action read_or_wait(struct world *w, struct thread *t, int copy, const struct stat *st, short events,
                             bool may_wait);

/* rw.c: reads and writes. recvfrom, recvmsg, accept, accept4 wait until
 * the socket is readable (flags: the call's MSG_ flags). */
enum sys_action recv_call(struct world *w, struct thread *t, int flags);
/* One write on a copy that never blocks (fl: the copy's status flags). */
ssize_t fd_put(int copy, bool sock, int fl, const void *buf, size_t n, int flags);
/* EPIPE raises SIGPIPE as Linux does (a socket: unless MSG_NOSIGNAL in flags
 * or part of the call was written already). */
void raise_sigpipe(struct world *w, struct thread *t, bool sock, int flags);
/* /dev/random, /dev/urandom, /dev/hwrng: read from the machine's stream. */
bool random_dev(const struct stat *st);
/* fdcache.c: a copy of fd as fd_probe makes, kept for the process when it
 * is a socket and handed out again while the fd stays what it was. Give it
 * back with fd_return (which closes only a copy not kept). */
int fd_lend(struct world *w, struct thread *t, int fd, struct stat *st);
void fd_return(struct thread *t, int copy);
/* Holds a lent copy across a block, as hold_copy does an owned one, without
 * a copy of its own: a kept copy whose fd closes meanwhile stays open until
 * its last holder lets go (thread_drop_copy, through fd_unhold). */
void fd_hold(struct thread *t, int copy, short events);
void fd_unhold(struct process *p, int copy);
/* Whether fd is known to name a plain file or directory whose reads the
 * kernel makes at once; fd_plain_note records that it does. */
bool fd_plain(const struct process *p, int fd);
void fd_plain_note(struct process *p, int fd);
/* Drops the kept copies (and plain facts) of fds lo..hi (before the tracee
 * closes them), all of them (exec, death), or all for good (a shared fd
 * table). */
void fdcache_forget(struct process *p, unsigned lo, unsigned hi);
void fdcache_forget_all(struct process *p);
void fdcache_stop(struct process *p);

/* socket.c: the parts of reads and writes that concern simulated sockets. */
struct simsock;
/* The simulated socket at the tracee's fd, or NULL; with copy, dsim's copy
 * of the fd (kept with the socket, else returned). */
struct simsock *sock_of(struct world *w, struct thread *t, int fd, int *copy);
/* Whether the thread's effective capabilities hold cap (its /proc status). */
bool thread_has_cap(struct thread *t, int cap);
/* autobind.c: a unix socket's autobound name, from the machine's entropy.
 * At a bind of a unix socket with its family alone: true, with the call
 * emulated in *a; false if it is no such call. */
bool autobind_on_bind(struct world *w, struct thread *t, enum sys_action *a);
/* Before a connect or a send with an address: names the unix socket fd
 * as Linux would there (unnamed, with SO_PASSCRED set). */
void autobind_before_send(struct world *w, struct thread *t, int fd);
/* Tries the names after `after` (mod 2^20) in Linux's order with try_bind
 * until one is free: its 0, or an error other than -EADDRINUSE, or
 * -ENOSPC when every name is taken. */
struct sockaddr_un;
long autobind_names(uint32_t after, long (*try_bind)(void *ctx, const struct sockaddr_un *a, unsigned len), void *ctx);
/* sockopt.c: the timeouts dsim keeps of a machine's own socket (inode
 * ino), or NULL; with make, a new entry of none. */
struct sock_timeouts *sock_timeouts_of(struct world *w, ino_t ino, bool make);
struct iovec;
enum sys_action sock_read(struct world *w, struct thread *t, struct simsock *s, int copy);
enum sys_action sock_accept(struct world *w, struct thread *t, struct simsock *listener);
long sock_send_dgram(struct world *w, struct thread *t, struct simsock *s, int copy, const struct iovec *iov,
                     unsigned long n, uint64_t addr, uint64_t addrlen);
/* Writes a's simulated address to addr (room and size at len_addr, as
 * recvfrom does); 0 or -errno. */
struct saddr;
int sock_put_addr(struct thread *t, const struct simsock *s, const struct saddr *a, uint64_t addr, uint64_t len_addr);

/* futex.c */
/* Wakes waiters on an exited thread's CLONE_CHILD_CLEARTID word. */
int futex_wake_tid(struct world *w, struct thread *exited, int n);

/* signal.c: a signal was generated for p (thread t, or any thread if NULL). */
void signal_generated(struct world *w, struct process *p, struct thread *t, int sig);
/* process.c: the process a tracee's pidfd names, or NULL. */
struct process *pidfd_process(struct world *w, struct thread *t, int fd);
/* The signals pending for a stopped thread (its own and its process's),
 * without those queued only because it is traced. */
uint64_t thread_pending_signals(struct thread *t);
/* What a blocked call does when a signal interrupts it. */
enum sys_action signal_interrupt(struct world *w, struct thread *t, const struct sys_entry *e);
enum sys_action signal_before_block(struct world *w, struct thread *t, const struct sys_entry *e);
struct sighand *sighand_new(struct world *w);
struct sighand *sighand_copy(struct world *w, const struct sighand *from);
void sighand_put(struct sighand *sh);
void sighand_exec_reset(struct sighand *sh);

/* sigfd.c: readiness checks as the thread would make them. A signalfd is
 * readable when the thread polling it has a signal pending in its mask, so
 * on a machine that made one these run with the thread's signals mirrored
 * on the supervisor's. Zero timeouts; EINTR never comes back. */
struct pollfd;
struct epoll_event;
int sig_poll(struct world *w, struct thread *t, struct pollfd *p, unsigned long n);
int sig_epoll_wait(struct world *w, struct thread *t, int epfd, struct epoll_event *ev, int max);

/* time.c: convert between virtual time and user timespecs. */
uint64_t ts_to_ns(int64_t sec, int64_t nsec);
/* Absolute virtual deadline for an absolute time on clock `clk`. */
uint64_t deadline_for_abs(struct world *w, struct thread *t, int clk, uint64_t abs_ns);
/* Reads a struct timespec at addr; -EFAULT/-EINVAL or 0. */
int read_timespec(struct thread *t, uint64_t addr, uint64_t *ns);
/* The value of clock clk as thread t reads it; *ok false for no clock. */
uint64_t clock_now(struct world *w, struct thread *t, int clk, bool *ok);
/* A clock fd's id ((~fd << 3) | 3, a dynamic clock: no CPU clock). */
static inline bool is_fd_clock(int clk) { return clk < 0 && (clk & 7) == 3; }
/* The process (*p) and thread (*th, NULL for a process clock) CPU-time
 * clock clk names, as the kernel's pid_for_clock, for a read (read) or a
 * timer or sleep; false if none (EINVAL). */
bool cpu_clock_target(struct world *w, struct thread *t, int clk, bool read, struct process **p, struct thread **th);
/* Writes the time left of an interrupted nanosleep/clock_nanosleep: 0, or
 * -EFAULT if it cannot (the call then fails with EFAULT, not EINTR). */
int sleep_interrupted(struct world *w, struct thread *t);
/* A select, pselect6 or ppoll ended by a signal writes back the time left. */
void poll_interrupted(struct world *w, struct thread *t);
/* A timer on virtual time, shared by timerfd and POSIX timers; or on a
 * process's (cpu_p) or a thread's (cpu_t) CPU time, which moves only with
 * their steps. expiry and interval are on that clock. */
struct vtimer {
    int clk;
    uint64_t expiry /* ns, 0 = disarmed */, interval;
    struct process *cpu_p;
    struct thread *cpu_t;
};
/* Now, on the timer's clock. */
uint64_t vtimer_now(struct world *w, const struct vtimer *v);
/* Reads an itimerspec: 0, -EFAULT or -EINVAL. */
int vtimer_read(struct thread *t, uint64_t addr, uint64_t *value, uint64_t *interval);
/* timer_settime/timerfd_settime: reads the new itimerspec at new_addr,
 * arms v, then writes the old one at old_addr (if set). 0 or -errno. */
int vtimer_settime(struct world *w, struct thread *t, struct vtimer *v, bool absolute,
                   uint64_t new_addr, uint64_t old_addr);
/* Writes v's itimerspec at addr: 0 or -EFAULT. */
int vtimer_gettime(struct world *w, struct thread *t, const struct vtimer *v, uint64_t addr);
/* Expirations of a due timer; advances it to its next expiry. */
uint64_t vtimer_expire(struct world *w, struct vtimer *v);
/* A warm start's copies (supervisor/snapproc.c): the index of the timerfd
 * that fd of host process pid is (its open file description), or -1; and
 * in the seed's supervisor, end (the copy's own timerfd, closed here)
 * takes the place of dsim's copy of timerfd index. 0, or -1. */
int timerfd_index(struct world *w, pid_t pid, int fd);
int timerfd_take(struct world *w, int index, int end);
/* timerfd and itimer expiry: earliest virtual time of a timer event, and firing. */
uint64_t timers_next(struct world *w);
void timers_fire(struct world *w);

/* ptimer.c: POSIX timers. */
uint64_t ptimers_next(struct world *w);
void ptimers_fire(struct world *w);
void ptimers_exec(struct world *w, struct process *p);

/* ipc.c: System V IPC. The state of a machine's objects goes with its IPC
 * namespace (at a restart, and at the end of the run); a fork attaches the
 * child's address space where its parent's is, and an address space left
 * by its last process detaches. */
void ipc_free(struct machine *m);
void ipc_fork(struct world *w, struct process *parent, struct process *child);
void ipc_mm_left(struct world *w, struct process *p, int mm);

/* outside.c: at an open's exit, notes what the new fd reaches if it is
 * outside the simulation (a host file, /proc, /sys, a device). */
void outside_open_noted(struct world *w, struct thread *t, long fd);
/* Notes that the thread read a host file's metadata: its path, and the
 * size, times and inode the kernel gave (stat.c, at a stat's exit). */
struct stat;
void outside_stat_note(struct world *w, struct thread *t, const char *path, const struct stat *st);

/* process.c */
void proc_on_exec(struct world *w, struct thread *t);
/* A process's last thread is gone: wake waiters, reparent children. */
void proc_on_exit(struct world *w, struct process *p);
/* A warm copy's process group, kept for the waits of its parent after its
 * death (process.c proc_pgid): read now. */
void proc_pgid_note(struct process *p);
/* A clone/fork/vfork event stop: registers the child. */
void proc_on_clone_event(struct world *w, struct thread *parent, pid_t child_tid, int event);
/* signal.c: the siginfo of a signal p takes (delivered to a handler, or
 * taken by sigtimedwait) made what Linux's would be where dsim's differs:
 * an itimer's signal dsim sent (kill: SI_USER) says SI_KERNEL; a SIGCHLD
 * tells the child's CPU time as dsim counts it (si_utime; si_stime 0), and
 * one dsim sent for a warm copy all of the kernel's. True if it changed.
 * itimer_mend (time.c) and proc_chld_mend (process.c) are its parts. */
bool siginfo_mend(struct world *w, struct process *p, siginfo_t *si);
/* sigfd.c: whether fd, of stat st, is a signalfd (only on a machine that
 * made one); a read of it passed to the kernel has its records mended at
 * the exit (sigfd_taken, an exit_quiet function). */
struct stat;
bool sigfd_read(struct world *w, struct thread *t, int fd, const struct stat *st);
void sigfd_taken(struct world *w, struct thread *t, long result);
bool itimer_mend(struct process *p, siginfo_t *si);
bool proc_chld_mend(struct world *w, struct process *p, siginfo_t *si);
/* prctl(PR_SET_CHILD_SUBREAPER). */
enum sys_action proc_set_subreaper(struct world *w, struct thread *t);
/* At a child's first stop: it sees the clone flags its parent passed. */
void proc_child_clone_view(struct thread *c);

/* paths.c: open with O_CREAT or O_SYNC. sync.c: a write through an O_SYNC fd. */
enum sys_action disk_open(struct world *w, struct thread *t, int dirfd, uint64_t addr, int flags);
enum sys_action disk_sync_write(struct world *w, struct thread *t, int fd);
/* The regular file at a machine path changed somewhere (truncate, O_TRUNC):
 * its next fsync copies it whole. */
void disk_path_changed(struct thread *t, const char *mpath);
/* The machine path of the entry a path argument names (its last component
 * not followed); false if it cannot be resolved. */
bool disk_entry_mpath(struct thread *t, int dirfd, uint64_t addr, char *out, size_t len);


/* ftimes.c: file times at calls that change files (disk/ftimes.h). The
 * regular file open as the tracee's fd changes now (the call passes). */
enum sys_action ftimes_fd_change(struct world *w, struct thread *t);
enum sys_action ftimes_fd_note(struct world *w, struct thread *t, int fd);

/* stat.c: the devices of m's /proc, /sys and /dev (m->proc_dev...). */
void machine_kernel_devs(struct machine *m);

/* procfs.c: the text dsim serves for a read at pos of tracee fd fd (copy,
 * with its stat st), if it is one of a process's /proc files dsim makes
 * (stat, status, statm, schedstat, io, maps); else NULL. */
bool procfs_file(struct machine *m, const struct stat *st);    /* a file of m's /proc */
const char *procfs_text(struct world *w, struct thread *t, int fd, int copy, const struct stat *st, uint64_t pos,
                        size_t *len);

void random_fill(struct world *w, struct thread *t, void *buf, size_t len);
/* random.c: fills len bytes at addr in the tracee: len, the bytes done before a bad
 * address, or -EFAULT. */
long random_to_tracee(struct world *w, struct thread *t, uint64_t addr, size_t len);
#endif
