/* Virtual time: clocks, sleeps, alarms and timerfds. Nothing here reads the
 * host clock; every value derives from w->now. */
#include "syscalls/sys.h"
#include "base/xalloc.h"
#include <fcntl.h>
#include <stddef.h>
#include "world/tracer.h"
#include <linux/kcmp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NS 1000000000ULL

uint64_t ts_to_ns(int64_t sec, int64_t nsec)
{
    if (sec < 0) return 0;
    if ((uint64_t)sec >= UINT64_MAX / NS - 1) return UINT64_MAX / 2;
    return (uint64_t)sec * NS + (uint64_t)nsec;
}

int read_timespec(struct thread *t, uint64_t addr, uint64_t *ns)
{
    struct timespec ts;
    if (mem_read(t->tid, addr, &ts, sizeof ts) != 0) return -EFAULT;
    if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (long)NS) return -EINVAL;
    *ns = ts_to_ns(ts.tv_sec, ts.tv_nsec);
    return 0;
}

static int write_timespec(struct thread *t, uint64_t addr, uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / NS), (long)(ns % NS) };
    return mem_write(t->tid, addr, &ts, sizeof ts) == 0 ? 0 : -EFAULT;
}

static uint64_t cpu_time(struct world *w, struct process *p, struct thread *only)
{
    return (only ? only->steps : process_steps(w, p)) * w->conf->quantum_ns;
}

/* The process or thread a CPU-clock id names, as the kernel's pid_for_clock
 * (kernel/time/posix-cpu-timers.c). A negative id is (~pid << 3) | type,
 * with 4 set for a thread's clock; the type is PROF 0, VIRT 1 or SCHED 2,
 * and 3 is no CPU clock (-1 is one; without the thread bit, a clock fd's
 * id, see is_fd_clock). pid 0 is the caller's thread or process; a thread
 * clock must name a thread of the caller's process, a process clock a
 * process by its pid, or for a read (read) the caller's own tid. Sets *p,
 * and *th for a thread clock (else NULL); false if the id names none,
 * which every call answers EINVAL. */
bool cpu_clock_target(struct world *w, struct thread *t, int clk, bool read, struct process **p, struct thread **th)
{
    *p = NULL, *th = NULL;
    if (clk == CLOCK_PROCESS_CPUTIME_ID) { *p = t->proc; return true; }
    if (clk == CLOCK_THREAD_CPUTIME_ID) { *p = t->proc, *th = t; return true; }
    if (clk >= 0 || (clk & 3) == 3) return false;
    pid_t id = (pid_t)~(clk >> 3);
    if (clk & 4) {
        struct thread *o = id ? world_thread_by_vtid(w, t->proc->m, id) : t;
        if (!o || o->proc != t->proc) return false;
        *p = o->proc, *th = o;
        return true;
    }
    *p = !id || (read && id == t->vtid) ? t->proc : world_proc_by_vpid(t->proc->m, w, id);
    return *p != NULL;
}

/* The value of clock clk as thread t sees it. */
uint64_t clock_now(struct world *w, struct thread *t, int clk, bool *ok)
{
    *ok = true;
    switch (clk) {
    case CLOCK_REALTIME: case CLOCK_REALTIME_COARSE: case CLOCK_REALTIME_ALARM: case CLOCK_TAI:
        return machine_realtime(w, t->proc->m);
    case CLOCK_MONOTONIC: case CLOCK_MONOTONIC_RAW: case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME: case CLOCK_BOOTTIME_ALARM:
        return machine_monotonic(w, t->proc->m);
    }
    struct process *p;
    struct thread *th;
    if (cpu_clock_target(w, t, clk, true, &p, &th)) return cpu_time(w, p, th);
    *ok = false;
    return 0;
}

static bool is_realtime(int clk)
{
    return clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_ALARM || clk == CLOCK_TAI ||
           clk == CLOCK_REALTIME_COARSE;
}

uint64_t deadline_for_abs(struct world *w, struct thread *t, int clk, uint64_t abs_ns)
{
    struct machine *m = t->proc->m;
    uint64_t base = is_realtime(clk) ? machine_realtime(w, m) : machine_monotonic(w, m);
    if (abs_ns <= base) return w->now;
    /* The machine's time runs at 1 + drift of the world's. */
    uint64_t world_ns = (uint64_t)((unsigned __int128)(abs_ns - base) * 1000000000 /
                                   (uint64_t)(1000000000 + m->clock_drift_ppb));
    return w->now + world_ns;
}

enum sys_action sys_clock_gettime(struct world *w, struct thread *t)
{
    bool ok;
    uint64_t v = clock_now(w, t, (int)ARG0(t), &ok);
    if (!ok) return emulate(t, -EINVAL);
    return emulate(t, write_timespec(t, ARG1(t), v));
}

/* The coarse clocks' resolution, a tick of a kernel built with HZ=250;
 * also the PROF and VIRT CPU clocks' (the SCHED ones, and the other
 * clocks, have 1 ns). */
#define TICK_NS 4000000

enum sys_action sys_clock_getres(struct world *w, struct thread *t)
{
    int clk = (int)ARG0(t);
    bool ok = clk >= 0 && clk != CLOCK_PROCESS_CPUTIME_ID && clk != CLOCK_THREAD_CPUTIME_ID;
    struct process *p;
    struct thread *th;
    if (ok) clock_now(w, t, clk, &ok);
    else ok = cpu_clock_target(w, t, clk, false, &p, &th);
    if (!ok) return emulate(t, -EINVAL);
    bool tick = clk == CLOCK_REALTIME_COARSE || clk == CLOCK_MONOTONIC_COARSE || (clk < 0 && (clk & 3) != 2);
    return emulate(t, ARG1(t) ? write_timespec(t, ARG1(t), tick ? TICK_NS : 1) : 0);
}

/* The last second settimeofday and clock_settime accept (the kernel's
 * TIME_SETTOD_SEC_MAX: KTIME_SEC_MAX less 30 years of uptime). */
#define SETTOD_SEC_MAX (9223372036LL - 30LL * 365 * 24 * 3600)

/* clock_settime, as for a caller without CAP_SYS_TIME on the host (a
 * machine's root): only CLOCK_REALTIME, the CPU clocks and clock fds can be
 * set at all (EINVAL, before the time is read); then EFAULT; a clock fd
 * is no PTP clock, a CPU clock must name a process (EINVAL); a bad time
 * is EINVAL; else EPERM. Per-machine clock offsets come with clock faults. */
static int settime_errno(struct world *w, struct thread *t)
{
    int clk = (int)ARG0(t);
    if (clk != CLOCK_REALTIME && clk >= 0) return -EINVAL;
    struct timespec ts;
    if (mem_read(t->tid, ARG1(t), &ts, sizeof ts)) return -EFAULT;
    if (clk < 0) {
        struct process *p;
        struct thread *th;
        return !is_fd_clock(clk) && cpu_clock_target(w, t, clk, false, &p, &th) ? -EPERM : -EINVAL;
    }
    if (ts.tv_sec < 0 || ts.tv_sec >= SETTOD_SEC_MAX || ts.tv_nsec < 0 || ts.tv_nsec >= (long)NS) return -EINVAL;
    return -EPERM;
}

/* settimeofday: the time read (EFAULT) and its microseconds checked, the
 * zone read (EFAULT), the time checked as a whole (EINVAL), then the
 * privilege (EPERM), which comes before the zone's range. */
static int settimeofday_errno(struct thread *t)
{
    struct timeval tv;
    struct timezone tz;
    if (ARG0(t)) {
        if (mem_read(t->tid, ARG0(t), &tv, sizeof tv)) return -EFAULT;
        if (tv.tv_usec > 1000000 || tv.tv_usec < 0) return -EINVAL;
    }
    if (ARG1(t) && mem_read(t->tid, ARG1(t), &tz, sizeof tz)) return -EFAULT;
    if (ARG0(t) && (tv.tv_sec < 0 || tv.tv_sec >= SETTOD_SEC_MAX || tv.tv_usec >= 1000000)) return -EINVAL;
    return -EPERM;
}

enum sys_action sys_clock_settime(struct world *w, struct thread *t)
{
    return emulate(t, SYSNR(t) == SYS_settimeofday ? settimeofday_errno(t) : settime_errno(w, t));
}

enum sys_action sys_gettimeofday(struct world *w, struct thread *t)
{
    uint64_t now = machine_realtime(w, t->proc->m);
    if (ARG0(t)) {
        struct timeval tv = { (time_t)(now / NS), (suseconds_t)(now % NS / 1000) };
        if (mem_write(t->tid, ARG0(t), &tv, sizeof tv)) return emulate(t, -EFAULT);
    }
    if (ARG1(t)) {
        struct timezone tz = { 0, 0 };
        if (mem_write(t->tid, ARG1(t), &tz, sizeof tz)) return emulate(t, -EFAULT);
    }
    return emulate(t, 0);
}

enum sys_action sys_time(struct world *w, struct thread *t)
{
    time_t s = (time_t)(machine_realtime(w, t->proc->m) / NS);
    if (ARG0(t) && mem_write(t->tid, ARG0(t), &s, sizeof s)) return emulate(t, -EFAULT);
    return emulate(t, s);
}

/* A sleep finished by its deadline; interrupted sleeps are handled by the
 * dispatcher (EINTR). */
static enum sys_action sleep_until(struct thread *t, uint64_t deadline)
{
    if (t->retry && t->timed_out) return emulate(t, 0);
    return block(t, deadline, NULL);
}

/* clock_nanosleep on a CPU-time clock (call.sleep.cpu_clock) waits until
 * the clock reaches call.sleep.end: the process's CPU time moves with its other
 * threads' steps. */
static bool cpu_clock_reached(struct world *w, struct thread *t)
{
    bool ok;
    return clock_now(w, t, (int)ARG0(t), &ok) >= t->call.sleep.end || !ok;
}

/* An interrupted relative sleep reports the time left, as Linux does; a
 * bad address for it turns EINTR into EFAULT. 0 or -EFAULT. */
int sleep_interrupted(struct world *w, struct thread *t)
{
    long nr = SYSNR(t);
    uint64_t rem_addr = nr == SYS_nanosleep ? ARG1(t) : nr == SYS_clock_nanosleep && !(ARG1(t) & TIMER_ABSTIME) ? ARG3(t) : 0;
    if (!rem_addr) return 0;
    uint64_t end = t->call.sleep.end, now = w->now;
    if (nr == SYS_clock_nanosleep && t->call.sleep.cpu_clock) {
        bool ok;
        now = clock_now(w, t, (int)ARG0(t), &ok);
    }
    return write_timespec(t, rem_addr, end > now ? end - now : 0) ? -EFAULT : 0;
}

enum sys_action sys_nanosleep(struct world *w, struct thread *t)
{
    if (!t->retry) {
        uint64_t ns;
        int e = read_timespec(t, ARG0(t), &ns);
        if (e) return emulate(t, e);
        if (ns == 0) return emulate(t, 0);
        t->call.sleep.end = w->now + ns;
        t->call.sleep.cpu_clock = false;
    }
    return sleep_until(t, t->call.sleep.end);
}

/* Which clocks can be slept on, as the kernel's k_clocks say: -EINVAL for
 * no such clock, -EOPNOTSUPP for one without nsleep (a clock fd's too),
 * 1 for a CPU-time clock (its target is checked once the request is
 * read), 0 for the others. */
static int sleep_clock(int clk)
{
    switch (clk) {
    case CLOCK_REALTIME: case CLOCK_MONOTONIC: case CLOCK_BOOTTIME: case CLOCK_TAI:
    case CLOCK_REALTIME_ALARM: case CLOCK_BOOTTIME_ALARM:
        return 0;
    case CLOCK_MONOTONIC_RAW: case CLOCK_REALTIME_COARSE: case CLOCK_MONOTONIC_COARSE: case CLOCK_THREAD_CPUTIME_ID:
        return -EOPNOTSUPP;
    case CLOCK_PROCESS_CPUTIME_ID:
        return 1;
    }
    return clk >= 0 ? -EINVAL : is_fd_clock(clk) ? -EOPNOTSUPP : 1;
}

enum sys_action sys_clock_nanosleep(struct world *w, struct thread *t)
{
    int clk = (int)ARG0(t);
    if (!t->retry) {
        int kind = sleep_clock(clk);
        if (kind < 0) return emulate(t, kind);
        uint64_t ns;
        int e = read_timespec(t, ARG2(t), &ns);
        if (e) return emulate(t, e);
        /* A machine has a real-time clock with alarms, and its root no
         * CAP_WAKE_ALARM on the host (alarm_timer_nsleep). */
        if (clk == CLOCK_REALTIME_ALARM || clk == CLOCK_BOOTTIME_ALARM)
            return emulate(t, ARG1(t) & ~(uint64_t)TIMER_ABSTIME ? -EINVAL : -EPERM);
        if (kind == 1) {
            /* The caller's own thread clock could never move; then the
             * clock must name a thread or process (posix_cpu_nsleep). */
            pid_t id = (pid_t)~(clk >> 3);
            struct process *p;
            struct thread *th;
            if (clk < 0 && (clk & 4) && (id == 0 || id == t->vtid)) return emulate(t, -EINVAL);
            if (!cpu_clock_target(w, t, clk, false, &p, &th)) return emulate(t, -EINVAL);
            bool ok;
            uint64_t now = clock_now(w, t, clk, &ok);
            t->call.sleep.end = (ARG1(t) & TIMER_ABSTIME) ? ns : now + ns;
            t->call.sleep.cpu_clock = true;
            if (t->call.sleep.end <= now) return emulate(t, 0);
            return block(t, UINT64_MAX, cpu_clock_reached);
        }
        uint64_t deadline = (ARG1(t) & TIMER_ABSTIME) ? deadline_for_abs(w, t, clk, ns) : w->now + ns;
        if (deadline <= w->now) return emulate(t, 0);
        t->call.sleep.end = deadline;
        t->call.sleep.cpu_clock = false;
    }
    if (t->call.sleep.cpu_clock) return cpu_clock_reached(w, t) ? emulate(t, 0) : SYS_BLOCK;
    return sleep_until(t, t->call.sleep.end);
}

/* ---- alarm and setitimer (ITIMER_REAL) ---- */

static void itimer_read(struct world *w, struct process *p, struct itimerval *v)
{
    uint64_t left = p->alarm_at > w->now ? p->alarm_at - w->now : (p->alarm_at ? 1 : 0);
    v->it_value.tv_sec = (time_t)(left / NS);
    v->it_value.tv_usec = (suseconds_t)((left % NS + 999) / 1000);
    if (v->it_value.tv_usec >= 1000000) { v->it_value.tv_sec++; v->it_value.tv_usec -= 1000000; }
    v->it_interval.tv_sec = (time_t)(p->alarm_interval / NS);
    v->it_interval.tv_usec = (suseconds_t)(p->alarm_interval % NS / 1000);
}

enum sys_action sys_alarm(struct world *w, struct thread *t)
{
    struct process *p = t->proc;
    struct itimerval old;
    itimer_read(w, p, &old);
    long ret = old.it_value.tv_sec + (old.it_value.tv_usec >= 500000);
    if (ret == 0 && old.it_value.tv_usec) ret = 1;
    unsigned secs = (unsigned)ARG0(t);
    p->alarm_at = secs ? w->now + secs * NS : 0;
    p->alarm_interval = 0;
    return emulate(t, ret);
}

static int read_timeval_ns(struct thread *t, uint64_t addr, uint64_t *ns)
{
    struct timeval tv;
    if (mem_read(t->tid, addr, &tv, sizeof tv)) return -EFAULT;
    if (tv.tv_sec < 0 || tv.tv_usec < 0 || tv.tv_usec >= 1000000) return -EINVAL;
    *ns = ts_to_ns(tv.tv_sec, tv.tv_usec * 1000);
    return 0;
}

/* ITIMER_VIRTUAL (0 here) and ITIMER_PROF (1) of p, as vtimers on its CPU time. */
static struct vtimer cpu_itimer(struct process *p, int which)
{
    return (struct vtimer){ CLOCK_PROCESS_CPUTIME_ID, p->cpu_itimer_at[which], p->cpu_itimer_interval[which], p, NULL };
}

static void cpu_itimer_read(struct world *w, struct process *p, int which, struct itimerval *v)
{
    struct vtimer vt = cpu_itimer(p, which);
    uint64_t now = vtimer_now(w, &vt), left = vt.expiry > now ? vt.expiry - now : (vt.expiry ? 1 : 0);
    v->it_value.tv_sec = (time_t)(left / NS);
    v->it_value.tv_usec = (suseconds_t)((left % NS + 999) / 1000);
    if (v->it_value.tv_usec >= 1000000) { v->it_value.tv_sec++; v->it_value.tv_usec -= 1000000; }
    v->it_interval.tv_sec = (time_t)(vt.interval / NS);
    v->it_interval.tv_usec = (suseconds_t)(vt.interval % NS / 1000);
}

static void any_itimer_read(struct world *w, struct process *p, int which, struct itimerval *v)
{
    if (which == ITIMER_REAL) itimer_read(w, p, v);
    else cpu_itimer_read(w, p, which == ITIMER_VIRTUAL ? 0 : 1, v);
}

enum sys_action sys_getitimer(struct world *w, struct thread *t)
{
    int which = (int)ARG0(t);
    if (which < ITIMER_REAL || which > ITIMER_PROF) return emulate(t, -EINVAL);
    struct itimerval v;
    any_itimer_read(w, t->proc, which, &v);
    return emulate(t, mem_write(t->tid, ARG1(t), &v, sizeof v) ? -EFAULT : 0);
}

enum sys_action sys_setitimer(struct world *w, struct thread *t)
{
    /* Linux's order: the new value (EFAULT, EINVAL), the timer (EINVAL),
     * then the old value, written after the timer is armed. */
    int which = (int)ARG0(t);
    uint64_t value = 0, interval = 0;
    if (ARG1(t)) {
        /* struct itimerval is { it_interval, it_value }. */
        int e = read_timeval_ns(t, ARG1(t) + offsetof(struct itimerval, it_value), &value);
        if (!e) e = read_timeval_ns(t, ARG1(t) + offsetof(struct itimerval, it_interval), &interval);
        if (e) return emulate(t, e);
    }
    if (which < ITIMER_REAL || which > ITIMER_PROF) return emulate(t, -EINVAL);
    struct itimerval old;
    struct process *p = t->proc;
    any_itimer_read(w, p, which, &old);
    if (which == ITIMER_REAL) {
        p->alarm_at = value ? w->now + value : 0;
        p->alarm_interval = value ? interval : 0;
    } else {
        /* On the process's CPU time, which moves only with its steps. */
        int k = which == ITIMER_VIRTUAL ? 0 : 1;
        struct vtimer vt = cpu_itimer(p, k);
        p->cpu_itimer_at[k] = value ? vtimer_now(w, &vt) + value : 0;
        p->cpu_itimer_interval[k] = value ? interval : 0;
    }
    return emulate(t, ARG2(t) && mem_write(t->tid, ARG2(t), &old, sizeof old) ? -EFAULT : 0);
}

/* ---- timerfd: a real eventfd whose counter the supervisor bumps ---- */

struct timerfd_state {
    int copy;               /* supervisor's copy of the eventfd */
    struct process *owner;
    struct vtimer timer;
};

/* The state of the timerfd behind the tracee's fd. Every eventfd shares one
 * anonymous inode, so compare open file descriptions with kcmp. */
static struct timerfd_state *timerfd_find(struct world *w, struct thread *t, int fd)
{
    int i = timerfd_index(w, t->proc->pid, fd);
    return i >= 0 ? &w->timerfds[i] : NULL;
}

int timerfd_index(struct world *w, pid_t pid, int fd)
{
    pid_t self = getpid();
    for (size_t i = 0; i < w->ntimerfds; i++)
        if (w->timerfds[i].copy >= 0 && syscall(SYS_kcmp, self, pid, KCMP_FILE, w->timerfds[i].copy, fd) == 0)
            return (int)i;
    return -1;
}

int timerfd_take(struct world *w, int index, int end)
{
    int copy = index >= 0 && (size_t)index < w->ntimerfds ? w->timerfds[index].copy : -1;
    int r = copy >= 0 && dup3(end, copy, O_CLOEXEC) == copy ? 0 : -1;
    close(end);
    return r;
}

/* The timer behind fd: -EBADF if fd is not open, -EINVAL if it is not a
 * timerfd, as timerfd_fget() decides. */
static int timerfd_of(struct world *w, struct thread *t, int fd, struct timerfd_state **out)
{
    int copy = fd_copy(w, t, fd);
    if (copy < 0) return -EBADF;
    close(copy);
    *out = timerfd_find(w, t, fd);
    return *out ? 0 : -EINVAL;
}

static void timerfd_created(struct world *w, struct thread *t, long result)
{
    t->regs.rdi = t->call.timerfd_create.clk;
    t->regs.rsi = t->call.timerfd_create.flags;
    t->regs_dirty = true;
    if (result < 0) return;
    int c = fd_copy(w, t, (int)result);
    if (c < 0) return;
    GROW(w->timerfds, w->ntimerfds, w->captimerfds);
    w->timerfds[w->ntimerfds++] = (struct timerfd_state){ c, t->proc, { (int)t->call.timerfd_create.clk, 0, 0, NULL, NULL } };
}

enum sys_action sys_timerfd_create(struct world *w, struct thread *t)
{
    int clk = (int)ARG0(t), flags = (int)ARG1(t);
    if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC && clk != CLOCK_BOOTTIME &&
        clk != CLOCK_REALTIME_ALARM && clk != CLOCK_BOOTTIME_ALARM)
        return emulate(t, -EINVAL);
    if (flags & ~(TFD_CLOEXEC | TFD_NONBLOCK)) return emulate(t, -EINVAL);
    /* No CAP_WAKE_ALARM on the host. */
    if (clk == CLOCK_REALTIME_ALARM || clk == CLOCK_BOOTTIME_ALARM) return emulate(t, -EPERM);
    /* Becomes eventfd2(0, flags): the same read/poll semantics, and only the
     * supervisor ever adds to it. TFD_* and EFD_* flags share values. */
    t->call.timerfd_create.clk = ARG0(t);
    t->call.timerfd_create.flags = ARG1(t);
    t->regs.orig_rax = SYS_eventfd2;
    t->regs.rdi = 0;
    t->regs.rsi = (unsigned long long)flags;
    t->regs_dirty = true;
    t->on_exit = timerfd_created;
    return SYS_PASS_EXIT;
}

uint64_t vtimer_now(struct world *w, const struct vtimer *v)
{
    return v->cpu_p ? cpu_time(w, v->cpu_p, v->cpu_t) : w->now;
}

static void itimerspec_of(struct world *w, const struct vtimer *v, struct itimerspec *out)
{
    uint64_t now = vtimer_now(w, v);
    uint64_t left = v->expiry > now ? v->expiry - now : (v->expiry ? 1 : 0);
    out->it_value = (struct timespec){ (time_t)(left / NS), (long)(left % NS) };
    out->it_interval = (struct timespec){ (time_t)(v->interval / NS), (long)(v->interval % NS) };
}

int vtimer_gettime(struct world *w, struct thread *t, const struct vtimer *v, uint64_t addr)
{
    struct itimerspec cur;
    itimerspec_of(w, v, &cur);
    return mem_write(t->tid, addr, &cur, sizeof cur) ? -EFAULT : 0;
}

int vtimer_read(struct thread *t, uint64_t addr, uint64_t *value, uint64_t *interval)
{
    int e = read_timespec(t, addr + sizeof(struct timespec), value);
    return e ? e : read_timespec(t, addr, interval);
}

/* As Linux: the timer is armed first, and the old setting written after
 * (a bad old_addr gives EFAULT with the timer armed). */
int vtimer_settime(struct world *w, struct thread *t, struct vtimer *v, bool absolute,
                   uint64_t new_addr, uint64_t old_addr)
{
    uint64_t value, interval;
    int e = vtimer_read(t, new_addr, &value, &interval);
    if (e) return e;
    struct itimerspec old;
    itimerspec_of(w, v, &old);
    uint64_t now = vtimer_now(w, v);
    if (value == 0) v->expiry = 0;
    else if (!absolute) v->expiry = now + value;
    else v->expiry = v->cpu_p ? value : deadline_for_abs(w, t, v->clk, value);
    if (v->expiry && v->expiry < now) v->expiry = now;
    v->interval = value ? interval : 0;
    return old_addr && mem_write(t->tid, old_addr, &old, sizeof old) ? -EFAULT : 0;
}

uint64_t vtimer_expire(struct world *w, struct vtimer *v)
{
    if (!v->interval) { v->expiry = 0; return 1; }
    uint64_t n = 1 + (vtimer_now(w, v) - v->expiry) / v->interval;
    v->expiry += n * v->interval;
    return n;
}

enum sys_action sys_timerfd_settime(struct world *w, struct thread *t)
{
    /* Linux's order: the new value (EFAULT), the flags and the value
     * (EINVAL), the fd (EBADF, EINVAL), then the old value. */
    struct timerfd_state *s;
    uint64_t value, interval;
    int e = vtimer_read(t, ARG2(t), &value, &interval);
    if (!e && (ARG1(t) & ~(unsigned long long)(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET))) e = -EINVAL;
    if (!e) e = timerfd_of(w, t, (int)ARG0(t), &s);
    if (e) return emulate(t, e);
    e = vtimer_settime(w, t, &s->timer, ARG1(t) & TFD_TIMER_ABSTIME, ARG2(t), ARG3(t));
    /* Re-arming resets the count; the copy may be blocking, so never read
     * it unless it holds something. */
    uint64_t drain;
    struct pollfd pfd = { s->copy, POLLIN, 0 };
    if (poll(&pfd, 1, 0) == 1 && read(s->copy, &drain, sizeof drain) < 0) {}
    return emulate(t, e);
}

enum sys_action sys_timerfd_gettime(struct world *w, struct thread *t)
{
    struct timerfd_state *s;
    int e = timerfd_of(w, t, (int)ARG0(t), &s);
    return emulate(t, e ? e : vtimer_gettime(w, t, &s->timer, ARG1(t)));
}

uint64_t timers_next(struct world *w)
{
    uint64_t next = ptimers_next(w);
    for (size_t i = 0; i < w->ntimerfds; i++)
        if (w->timerfds[i].copy >= 0 && w->timerfds[i].timer.expiry && w->timerfds[i].timer.expiry < next)
            next = w->timerfds[i].timer.expiry;
    for (size_t i = 0; i < w->nprocs; i++) {
        struct process *p = w->procs[i];
        if (!p->exited && p->alarm_at && p->alarm_at < next) next = p->alarm_at;
    }
    return next;
}

void timers_fire(struct world *w)
{
    ptimers_fire(w);
    for (size_t i = 0; i < w->ntimerfds; i++) {
        struct timerfd_state *s = &w->timerfds[i];
        if (s->copy < 0) continue;
        if (s->owner->exited) { close(s->copy); s->copy = -1; continue; }
        if (!s->timer.expiry || s->timer.expiry > w->now) continue;
        uint64_t n = vtimer_expire(w, &s->timer);
        if (write(s->copy, &n, sizeof n) < 0) {}
        w->io_epoch++;
    }
    for (size_t i = 0; i < w->nprocs; i++) {
        struct process *p = w->procs[i];
        if (p->exited || !p->alarm_at || p->alarm_at > w->now) continue;
        struct vtimer alarm = { CLOCK_REALTIME, p->alarm_at, p->alarm_interval, NULL, NULL };
        vtimer_expire(w, &alarm);
        p->alarm_at = alarm.expiry;
        w->io_epoch++;
        trace_event(w->trace, w->now, p->m->name, p->vpid, "timer SIGALRM");
        if (kill(p->pid, SIGALRM) == 0) {
            p->itimer_sigs |= 1ULL << SIGALRM;
            signal_generated(w, p, NULL, SIGALRM);
        }
    }
    /* CPU-time itimers: the process's steps moved its clock past them. */
    for (size_t i = 0; i < w->nprocs; i++) {
        struct process *p = w->procs[i];
        for (int k = 0; k < 2 && !p->exited; k++) {
            if (!p->cpu_itimer_at[k]) continue;
            struct vtimer vt = cpu_itimer(p, k);
            if (vt.expiry > vtimer_now(w, &vt)) continue;
            vtimer_expire(w, &vt);
            p->cpu_itimer_at[k] = vt.expiry;
            w->io_epoch++;
            int sig = k == 0 ? SIGVTALRM : SIGPROF;
            trace_event(w->trace, w->now, p->m->name, p->vpid, "timer SIG%s", sigabbrev_np(sig));
            if (kill(p->pid, sig) == 0) {
                p->itimer_sigs |= 1ULL << sig;
                signal_generated(w, p, NULL, sig);
            }
        }
    }
}

bool itimer_mend(struct process *p, siginfo_t *si)
{
    int sig = si->si_signo;
    if (sig < 1 || sig > 63 || !(p->itimer_sigs & (1ULL << sig))) return false;
    p->itimer_sigs &= ~(1ULL << sig);   /* pending, they were one */
    if (si->si_code != SI_USER || si->si_pid != 0) return false;
    si->si_code = SI_KERNEL;
    return true;
}
