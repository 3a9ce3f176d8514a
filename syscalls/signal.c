/* Signals. The kernel queues and delivers them; the supervisor decides when:
 * a thread takes a signal only when it resumes at a step, and a thread held
 * in an emulated blocking call is interrupted as Linux would interrupt it. */
#include "syscalls/sys.h"
#include "world/tracer.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

struct sighand *sighand_new(struct world *w)
{
    struct sighand *sh = calloc(1, sizeof *sh);
    sh->refs = 1;
    return sh;
}

struct sighand *sighand_copy(struct world *w, const struct sighand *from)
{
    struct sighand *sh = sighand_new(w);
    if (from) memcpy(sh->act, from->act, sizeof sh->act);
    return sh;
}

void sighand_put(struct sighand *sh)
{
    if (sh && --sh->refs == 0) free(sh);
}

void sighand_exec_reset(struct sighand *sh)
{
    for (int i = 0; i < 65; i++)
        if (sh->act[i].handler != (uint64_t)SIG_IGN) sh->act[i] = (struct sigaction_lite){ 0, 0 };
}

static bool ignored(const struct sighand *sh, int sig)
{
    uint64_t h = sh->act[sig].handler;
    if (h == (uint64_t)SIG_IGN) return true;
    return h == (uint64_t)SIG_DFL &&
           (sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT);
}

struct sigstate { uint64_t pending, blocked; };

/* Pending and blocked sets of a stopped thread (signal events only: /proc). */
static bool read_sigstate(pid_t tid, struct sigstate *s)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", tid);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    memset(s, 0, sizeof *s);
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "SigPnd:", 7) || !strncmp(line, "ShdPnd:", 7))
            s->pending |= strtoull(line + 7, NULL, 16);
        else if (!strncmp(line, "SigBlk:", 7))
            s->blocked = strtoull(line + 7, NULL, 16);
    }
    fclose(f);
    return true;
}

#define BIT(sig) (1ULL << ((sig) - 1))

/* The signals queued for a stopped thread, its own and its process's, read
 * from the kernel's queues with two ptrace calls (no /proc). A signal that
 * is neither blocked nor handled only waits there because the thread is
 * traced (the kernel queues ignored signals for a tracer to see; natively
 * they are dropped at once): it is left out. */
static uint64_t queued(pid_t tid, unsigned flags)
{
    enum { BATCH = 32 };
    siginfo_t si[BATCH];
    struct __ptrace_peeksiginfo_args a = { .off = 0, .flags = flags, .nr = BATCH };
    uint64_t bits = 0;
    for (;;) {
        long n = ptrace(PTRACE_PEEKSIGINFO, tid, &a, si);
        for (long i = 0; i < n; i++)
            if (si[i].si_signo >= 1 && si[i].si_signo <= 64) bits |= BIT(si[i].si_signo);
        if (n < BATCH) return bits;
        a.off += (uint64_t)n;
    }
}

uint64_t thread_pending_signals(struct thread *t)
{
    uint64_t pending = queued(t->tid, 0) | queued(t->tid, PTRACE_PEEKSIGINFO_SHARED), blocked = 0;
    if (!pending || !t->proc->sh) return pending;
    if (ptrace(PTRACE_GETSIGMASK, t->tid, sizeof blocked, &blocked) != 0) return pending;
    for (int sig = 1; sig <= 64; sig++)
        if ((pending & BIT(sig)) && !(blocked & BIT(sig)) && ignored(t->proc->sh, sig)) pending &= ~BIT(sig);
    return pending;
}

/* The mask a blocked call waits under, if it has its own: sigsuspend's, and
 * that of ppoll, pselect6 and epoll_pwait(2) when given (read from the
 * stopped thread: signal events only). */
static bool wait_mask(struct thread *t, uint64_t *mask)
{
    long nr = SYSNR(t);
    uint64_t addr = 0;
    if (nr == SYS_rt_sigsuspend) { *mask = t->sigsuspend_mask; return true; }
    if (nr == SYS_ppoll) addr = ARG3(t);
    else if (nr == SYS_epoll_pwait || nr == SYS_epoll_pwait2) addr = ARG4(t);
    else if (nr == SYS_pselect6 && ARG5(t)) {
        uint64_t data[2];           /* { const sigset_t *ss; size_t ss_len; } */
        if (mem_read(t->tid, ARG5(t), data, sizeof data)) return false;
        addr = data[0];
    }
    return addr && mem_read(t->tid, addr, mask, sizeof *mask) == 0;
}

static uint64_t effective_mask(struct thread *t, uint64_t blocked)
{
    uint64_t mask;
    return t->state == TS_BLOCKED && wait_mask(t, &mask) ? mask : blocked;
}

/* SIGKILL ends a stopped tracee at once, in the kernel, whenever it gets to
 * it. Its threads are marked dying so that the step waits for their deaths:
 * otherwise when they are seen (and so the trace) would depend on timing. */
static void expect_death(struct process *p, struct world *w)
{
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *o = w->threads[i];
        if (o->proc == p && o->state != TS_DEAD && o->state != TS_RUNNING) o->state = TS_DYING;
    }
}

void signal_generated(struct world *w, struct process *p, struct thread *target, int sig)
{
    w->io_epoch++;          /* pending signals show in a signalfd's readiness */
    if (sig == SIGKILL) expect_death(p, w);
    if (sig <= 0 || sig > 64 || sig == SIGKILL || sig == SIGSTOP || !p->sh || ignored(p->sh, sig)) return;
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *o = w->threads[i];
        if (o->proc != p || (target && o != target)) continue;
        if (o->state == TS_DEAD || o->state == TS_DYING) continue;
        struct sigstate s;
        if (!read_sigstate(o->tid, &s)) continue;
        if (effective_mask(o, s.blocked) & BIT(sig)) continue;
        /* A thread that will return to user mode anyway takes it then;
         * but the call it stands at, if it would block, is cut short. */
        if (o->state != TS_BLOCKED) {
            if (o->state == TS_READY && o != w->running) o->pending_sig = sig;
            return;
        }
        o->interrupted = true;
        o->intr_sig = sig;
        return;
    }
}

/* The call would block, but a signal came while the thread stood at it. */
enum sys_action signal_before_block(struct world *w, struct thread *t, const struct sys_entry *e)
{
    uint64_t mask;
    if (wait_mask(t, &mask) && (mask & BIT(t->pending_sig))) return SYS_BLOCK;
    t->interrupted = true;
    t->intr_sig = t->pending_sig;
    return signal_interrupt(w, t, e);
}

enum sys_action signal_interrupt(struct world *w, struct thread *t, const struct sys_entry *e)
{
    uint64_t mask;
    /* Waits with their own mask: the real call installs it, finds the
     * signal pending, runs the handler and returns EINTR, as Linux would. */
    if (wait_mask(t, &mask)) return SYS_PASS;
    if (t->partial > 0) return emulate(t, t->partial);     /* a write interrupted midway */
    if (sleep_interrupted(w, t)) return emulate(t, -EFAULT);
    poll_interrupted(w, t);
    struct sigaction_lite *a = &t->proc->sh->act[t->intr_sig];
    bool handler = a->handler != (uint64_t)SIG_DFL && a->handler != (uint64_t)SIG_IGN;
    /* A socket call waiting with SO_RCVTIMEO/SO_SNDTIMEO (the only finite
     * deadline such calls have) is not restarted: signal(7). */
    long nr = SYSNR(t);
    bool timed_io = t->deadline != UINT64_MAX && nr != SYS_futex && nr != SYS_flock;
    if (handler && (a->flags & SA_RESTART) && e && e->restart == RS_RESTART_SA && !timed_io) {
        /* Skip it now; the call is made again once the handler returns. */
        t->regs.rax = t->regs.orig_rax;
        t->regs.rip -= 2;
        return SYS_EMULATE;
    }
    return emulate(t, -EINTR);
}

enum sys_action sys_rt_sigaction(struct world *w, struct thread *t)
{
    int sig = (int)ARG0(t);
    if (ARG1(t) && sig >= 1 && sig <= 64 && sig != SIGKILL && sig != SIGSTOP) {
        uint64_t act[2];
        if (mem_read(t->tid, ARG1(t), act, sizeof act) == 0)
            t->proc->sh->act[sig] = (struct sigaction_lite){ act[0], act[1] };
    }
    return SYS_PASS;
}

/* The host pgid that kill(pid <= 0) aims at; 0 for kill(-1). */
static pid_t kill_group(struct world *w, struct thread *t, pid_t pid)
{
    if (pid == 0) return getpgid(t->proc->pid);
    if (pid >= -1) return 0;
    for (size_t i = 0; i < w->nprocs; i++)
        if (w->procs[i]->m == t->proc->m && w->procs[i]->vpid == -pid) return w->procs[i]->pid;
    for (size_t i = 0; i < w->ndeadprocs; i++)       /* a leader reaped before its group */
        if (w->deadprocs[i]->m == t->proc->m && w->deadprocs[i]->vpid == -pid) return w->deadprocs[i]->pid;
    return -1;
}

/* kill and friends (pidfd_send_signal too) run in the kernel (it translates pids in the namespace);
 * the supervisor then interrupts whoever Linux would interrupt. */
static void kill_done(struct world *w, struct thread *t, long result)
{
    long nr = SYSNR(t);
    if (result != 0) return;
    struct machine *m = t->proc->m;
    int sig;
    if (nr == SYS_tgkill || nr == SYS_rt_tgsigqueueinfo) {
        sig = (int)ARG2(t);
        struct thread *o = world_thread_by_vtid(w, m, (pid_t)ARG1(t));
        if (o) signal_generated(w, o->proc, o, sig);
        return;
    }
    if (nr == SYS_pidfd_send_signal) {
        struct process *o = ARG1(t) ? pidfd_process(w, t, (int)ARG0(t)) : NULL;
        if (o && !o->exited) signal_generated(w, o, NULL, (int)ARG1(t));
        return;
    }
    if (nr == SYS_tkill) {
        struct thread *o = world_thread_by_vtid(w, m, (pid_t)ARG0(t));
        if (o) signal_generated(w, o->proc, o, (int)ARG1(t));
        return;
    }
    pid_t pid = (pid_t)ARG0(t);
    sig = (int)ARG1(t);
    pid_t group = kill_group(w, t, pid);
    for (size_t i = 0; i < w->nprocs; i++) {
        struct process *p = w->procs[i];
        if (p->m != m || p->exited) continue;
        if (pid > 0 ? p->vpid != pid : pid == -1 ? p == t->proc : getpgid(p->pid) != group) continue;
        signal_generated(w, p, NULL, sig);
    }
}

enum sys_action sys_kill(struct world *w, struct thread *t)
{
    t->on_exit = kill_done;
    return SYS_PASS_EXIT;
}

enum sys_action sys_pause(struct world *w, struct thread *t)
{
    return block(t, UINT64_MAX, NULL);      /* only a signal ends it */
}

static bool deliverable_now(struct thread *t, uint64_t mask)
{
    struct sigstate s;
    if (!read_sigstate(t->tid, &s)) return false;
    uint64_t ready = s.pending & ~mask;
    for (int sig = 1; sig <= 64; sig++)
        if ((ready & BIT(sig)) && !ignored(t->proc->sh, sig)) return true;
    return false;
}

enum sys_action sys_rt_sigsuspend(struct world *w, struct thread *t)
{
    uint64_t mask;
    if (ARG1(t) != 8) return emulate(t, -EINVAL);
    if (mem_read(t->tid, ARG0(t), &mask, sizeof mask)) return emulate(t, -EFAULT);
    mask &= ~(BIT(SIGKILL) | BIT(SIGSTOP));
    t->sigsuspend_mask = mask;
    if (deliverable_now(t, mask)) return SYS_PASS;
    return block(t, UINT64_MAX, NULL);
}

static bool sigwait_ready(struct world *w, struct thread *t)
{
    struct sigstate s;
    return read_sigstate(t->tid, &s) && (s.pending & t->call.sigtimedwait.set);
}

bool siginfo_mend(struct world *w, struct process *p, siginfo_t *si)
{
    if (si->si_signo == SIGCHLD) return proc_chld_mend(w, p, si);
    return itimer_mend(p, si);
}

/* sigtimedwait's exit: the siginfo it wrote, as a handler would get it. */
static void sigwait_taken(struct world *w, struct thread *t, long result)
{
    siginfo_t si;
    if (result <= 0 || !ARG1(t) || mem_read(t->tid, ARG1(t), &si, sizeof si) != 0) return;
    if (siginfo_mend(w, t->proc, &si)) mem_write(t->tid, ARG1(t), &si, sizeof si);
}

static enum sys_action sigwait_take(struct thread *t)
{
    t->exit_quiet = sigwait_taken;     /* the event stays a passed call's: hashes as before */
    return SYS_PASS;
}

enum sys_action sys_rt_sigtimedwait(struct world *w, struct thread *t)
{
    if (!t->retry) {
        uint64_t set;
        if (ARG3(t) != 8) return emulate(t, -EINVAL);
        if (mem_read(t->tid, ARG0(t), &set, sizeof set)) return emulate(t, -EFAULT);
        t->call.sigtimedwait.set = set;
        uint64_t timeout = UINT64_MAX;
        if (ARG2(t)) {
            uint64_t ns;
            int e = read_timespec(t, ARG2(t), &ns);
            if (e) return emulate(t, e);
            timeout = w->now + ns;
        }
        t->call.sigtimedwait.deadline = timeout;
        if (sigwait_ready(w, t) || timeout == w->now) return sigwait_take(t);
    }
    if (sigwait_ready(w, t)) return sigwait_take(t);
    if (t->timed_out) return emulate(t, -EAGAIN);
    return block(t, t->call.sigtimedwait.deadline, sigwait_ready);
}
