/* POSIX timers (timer_create and friends) on virtual time. An expiry queues
 * the timer's signal with a real SI_TIMER siginfo (rt_sigqueueinfo from the
 * supervisor), so handlers and sigwaitinfo see si_value and si_overrun. */
#include "syscalls/sys.h"
#include "base/xalloc.h"
#include "world/tracer.h"
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct ptimer {
    struct process *owner;
    int id;
    struct vtimer timer;
    int notify;             /* SIGEV_SIGNAL, SIGEV_NONE or SIGEV_THREAD_ID */
    int sig;
    pid_t target_vtid;      /* SIGEV_THREAD_ID */
    uint64_t value;         /* sigev_value */
    int overrun;
    bool deleted;
};

static struct ptimer *find(struct world *w, struct process *p, int id)
{
    for (size_t i = 0; i < w->nptimers; i++)
        if (w->ptimers[i].owner == p && w->ptimers[i].id == id && !w->ptimers[i].deleted) return &w->ptimers[i];
    return NULL;
}

/* Which clocks can be timed, as the kernel's k_clocks say: 0, -EINVAL for
 * no such clock, -EOPNOTSUPP for one without timers (the raw and coarse
 * clocks, a clock fd's). A CPU-time clock's target is checked last. */
static int timer_clock(int clk)
{
    switch (clk) {
    case CLOCK_REALTIME: case CLOCK_MONOTONIC: case CLOCK_BOOTTIME: case CLOCK_TAI:
    case CLOCK_REALTIME_ALARM: case CLOCK_BOOTTIME_ALARM:
    case CLOCK_PROCESS_CPUTIME_ID: case CLOCK_THREAD_CPUTIME_ID:
        return 0;
    case CLOCK_MONOTONIC_RAW: case CLOCK_REALTIME_COARSE: case CLOCK_MONOTONIC_COARSE:
        return -EOPNOTSUPP;
    }
    return clk >= 0 ? -EINVAL : is_fd_clock(clk) ? -EOPNOTSUPP : 0;
}

/* Linux's order: the sigevent is read (EFAULT), the clock checked (EINVAL,
 * EOPNOTSUPP), an id taken, the sigevent checked (EINVAL), the id written
 * (EFAULT), then a CPU-time clock's process or thread looked up (EINVAL).
 * A failure once the id is taken uses it up, as there. */
enum sys_action sys_timer_create(struct world *w, struct thread *t)
{
    int clk = (int)ARG0(t);
    struct ptimer pt = { .owner = t->proc, .timer = { clk, 0, 0, NULL, NULL }, .notify = SIGEV_SIGNAL, .sig = SIGALRM };
    struct { uint64_t value; int signo, notify; int tid; } ev;
    if (ARG1(t) && mem_read(t->tid, ARG1(t), &ev, sizeof ev)) return emulate(t, -EFAULT);
    int e = timer_clock(clk);
    if (e) return emulate(t, e);
    int id = 0;
    for (size_t i = 0; i < w->nptimers; i++)
        if (w->ptimers[i].owner == t->proc && w->ptimers[i].id >= id) id = w->ptimers[i].id + 1;
    pt.id = id;
    pt.value = (uint64_t)id;
    if (ARG1(t)) {
        pt.value = ev.value;
        pt.sig = ev.signo;
        /* SIGEV_THREAD is glibc's: made by the system call, it is a
         * SIGEV_SIGNAL. */
        pt.notify = ev.notify == SIGEV_THREAD ? SIGEV_SIGNAL : ev.notify;
        if (pt.notify == SIGEV_THREAD_ID) {
            pt.target_vtid = ev.tid;
            struct thread *o = world_thread_by_vtid(w, t->proc->m, ev.tid);
            if (!o || o->proc != t->proc) e = -EINVAL;
        } else if (pt.notify != SIGEV_SIGNAL && pt.notify != SIGEV_NONE) {
            e = -EINVAL;
        }
        if (pt.notify != SIGEV_NONE && (pt.sig < 1 || pt.sig > 64)) e = -EINVAL;
    }
    if (!e && mem_write(t->tid, ARG2(t), &id, sizeof id)) e = -EFAULT;
    if (!e && (clk < 0 || clk == CLOCK_PROCESS_CPUTIME_ID || clk == CLOCK_THREAD_CPUTIME_ID) &&
        !cpu_clock_target(w, t, clk, false, &pt.timer.cpu_p, &pt.timer.cpu_t))
        e = -EINVAL;
    /* The clock's own check, after the id is out: a machine has a real-time
     * clock with alarms, and its root no CAP_WAKE_ALARM on the host. */
    if (!e && (clk == CLOCK_REALTIME_ALARM || clk == CLOCK_BOOTTIME_ALARM)) e = -EPERM;
    pt.deleted = e != 0;
    GROW(w->ptimers, w->nptimers, w->capptimers);
    w->ptimers[w->nptimers++] = pt;
    return emulate(t, e);
}

enum sys_action sys_timer_settime(struct world *w, struct thread *t)
{
    struct ptimer *pt = find(w, t->proc, (int)ARG0(t));
    if (!pt) return emulate(t, -EINVAL);
    pt->overrun = 0;
    return emulate(t, vtimer_settime(w, t, &pt->timer, ARG1(t) & TIMER_ABSTIME, ARG2(t), ARG3(t)));
}

enum sys_action sys_timer_gettime(struct world *w, struct thread *t)
{
    struct ptimer *pt = find(w, t->proc, (int)ARG0(t));
    return emulate(t, pt ? vtimer_gettime(w, t, &pt->timer, ARG1(t)) : -EINVAL);
}

enum sys_action sys_timer_getoverrun(struct world *w, struct thread *t)
{
    struct ptimer *pt = find(w, t->proc, (int)ARG0(t));
    return emulate(t, pt ? pt->overrun : -EINVAL);
}

enum sys_action sys_timer_delete(struct world *w, struct thread *t)
{
    struct ptimer *pt = find(w, t->proc, (int)ARG0(t));
    if (!pt) return emulate(t, -EINVAL);
    pt->deleted = true;
    return emulate(t, 0);
}

/* exec destroys a process's timers. */
void ptimers_exec(struct world *w, struct process *p)
{
    for (size_t i = 0; i < w->nptimers; i++)
        if (w->ptimers[i].owner == p) w->ptimers[i].deleted = true;
}

static bool live(const struct ptimer *pt)
{
    return !pt->deleted && !pt->owner->exited && pt->timer.expiry;
}

/* The next world time a timer expires; CPU-time timers have none (their
 * clocks move only with steps, and the clock never jumps to them). */
uint64_t ptimers_next(struct world *w)
{
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < w->nptimers; i++)
        if (live(&w->ptimers[i]) && !w->ptimers[i].timer.cpu_p && w->ptimers[i].timer.expiry < next)
            next = w->ptimers[i].timer.expiry;
    return next;
}

static void notify(struct world *w, struct ptimer *pt)
{
    struct process *p = pt->owner;
    struct thread *target = pt->notify == SIGEV_THREAD_ID ? world_thread_by_vtid(w, p->m, pt->target_vtid) : NULL;
    if (pt->notify == SIGEV_THREAD_ID && !target) return;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = pt->sig;
    si.si_code = SI_TIMER;
    si.si_timerid = pt->id;
    si.si_overrun = pt->overrun;
    si.si_value.sival_ptr = (void *)(uintptr_t)pt->value;
    long rc = target ? syscall(SYS_rt_tgsigqueueinfo, p->pid, target->tid, pt->sig, &si)
                     : syscall(SYS_rt_sigqueueinfo, p->pid, pt->sig, &si);
    trace_event(w->trace, w->now, p->m->name, target ? target->vtid : p->vpid, "timer %d SIG%s overrun %d",
                pt->id, sigabbrev_np(pt->sig) ? sigabbrev_np(pt->sig) : "?", pt->overrun);
    if (rc == 0) signal_generated(w, p, target, pt->sig);
}

void ptimers_fire(struct world *w)
{
    for (size_t i = 0; i < w->nptimers; i++) {
        struct ptimer *pt = &w->ptimers[i];
        if (!live(pt) || pt->timer.expiry > vtimer_now(w, &pt->timer)) continue;
        pt->overrun = (int)(vtimer_expire(w, &pt->timer) - 1);
        w->io_epoch++;
        if (pt->notify != SIGEV_NONE) notify(w, pt);
    }
}
