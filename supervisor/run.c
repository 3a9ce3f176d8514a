#include "supervisor/run.h"
#include "supervisor/filter.h"
#include "supervisor/machine.h"
#include "supervisor/stack.h"
#include "supervisor/tracer.h"
#include "syscalls/sys.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

volatile sig_atomic_t dsim_interrupted;

#define MAX_INITS 256
static volatile pid_t live_inits[MAX_INITS];

void run_kill_all_async(void)
{
    for (int i = 0; i < MAX_INITS; i++)
        if (live_inits[i] > 0) kill(live_inits[i], SIGKILL);
}

const char *outcome_name(enum outcome o)
{
    static const char *const names[] = { "running", "pass", "exit", "time limit", "deadlock",
                                         "fence", "check", "internal", "spin" };
    return names[o];
}

void world_fail(struct world *w, enum outcome o, const char *fmt, ...)
{
    if (w->outcome != OUT_RUNNING) return;
    w->outcome = o;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->reason, sizeof w->reason, fmt, ap);
    va_end(ap);
}

/* ---- registry ---- */

struct thread *world_thread_by_tid(struct world *w, pid_t tid)
{
    for (size_t i = w->nthreads; i-- > 0;)
        if (w->threads[i]->tid == tid && w->threads[i]->state != TS_DEAD) return w->threads[i];
    return NULL;
}

struct thread *world_thread_by_vtid(struct world *w, struct machine *m, pid_t vtid)
{
    for (size_t i = w->nthreads; i-- > 0;) {
        struct thread *t = w->threads[i];
        if (t->vtid == vtid && t->proc->m == m && t->state != TS_DEAD) return t;
    }
    return NULL;
}

struct process *world_proc_by_vpid(struct machine *m, struct world *w, pid_t vpid)
{
    for (size_t i = w->nprocs; i-- > 0;)
        if (w->procs[i]->vpid == vpid && w->procs[i]->m == m && !w->procs[i]->reaped)
            return w->procs[i];
    return NULL;
}

#define GROW(arr, n, cap) do { if ((n) == (cap)) { (cap) = (cap) ? 2 * (cap) : 16; \
    (arr) = realloc((arr), (cap) * sizeof *(arr)); if (!(arr)) abort(); } } while (0)

struct thread *world_add_thread(struct world *w, struct process *p, pid_t tid, pid_t vtid)
{
    struct thread *t = calloc(1, sizeof *t);
    t->id = (int)w->nthreads + 1;
    t->tid = tid;
    t->vtid = vtid;
    t->proc = p;
    t->state = TS_NEW;
    t->deadline = UINT64_MAX;
    t->copy_fd = -1;
    if (!p->leader) p->leader = t;
    p->nlive++;
    if (w->nthreads == w->capthreads) {
        GROW(w->threads, w->nthreads, w->capthreads);
        w->runnable = realloc(w->runnable, w->capthreads * sizeof *w->runnable);
        if (!w->runnable) abort();
    }
    w->threads[w->nthreads++] = t;
    return t;
}

struct process *world_add_process(struct world *w, struct machine *m, pid_t pid, pid_t vpid)
{
    struct process *p = calloc(1, sizeof *p);
    p->pid = pid;
    p->vpid = vpid;
    p->m = m;
    p->pidfd = -1;
    p->mm = ++w->next_mm;
    GROW(w->procs, w->nprocs, w->capprocs);
    w->procs[w->nprocs++] = p;
    return p;
}

/* ---- trace text ---- */

static const char *errname(long e)
{
    const char *n = strerrorname_np((int)e);
    return n ? n : "E?";
}

static void format_call(struct world *w, struct thread *t, char *buf, size_t len)
{
    long nr = SYSNR(t);
    const struct sys_entry *e = sys_lookup(nr);
    const char *args = e && e->args ? e->args : "xxxxxx";
    unsigned long long v[6] = { ARG0(t), ARG1(t), ARG2(t), ARG3(t), ARG4(t), ARG5(t) };
    size_t off = (size_t)snprintf(buf, len, "%s(", e && e->name ? e->name : "?");
    for (int i = 0; i < 6 && args[i] && args[i] != '-' && off < len; i++) {
        const char *sep = i ? ", " : "";
        char s[96];
        switch (args[i]) {
        case 'd': case 'f': off += (size_t)snprintf(buf + off, len - off, "%s%d", sep, (int)v[i]); break;
        case 'l': off += (size_t)snprintf(buf + off, len - off, "%s%lld", sep, (long long)v[i]); break;
        case 's':
            if (v[i] && mem_read_str(t->tid, v[i], s, sizeof s) >= 0)
                off += (size_t)snprintf(buf + off, len - off, "%s\"%s\"", sep, s);
            else
                off += (size_t)snprintf(buf + off, len - off, "%sNULL", sep);
            break;
        case 'p': off += (size_t)snprintf(buf + off, len - off, "%s%s", sep, v[i] ? "p" : "NULL"); break;
        default: off += (size_t)snprintf(buf + off, len - off, "%s%#llx", sep, v[i]); break;
        }
    }
    if (off < len) snprintf(buf + off, len - off, ")");
}

/* --stacks: the thread's stack, innermost first, on one note line. */
static void note_stack(struct world *w, struct thread *t)
{
    char stack[4096], line[4096];
    stack_format(t->tid, stack, sizeof stack);
    size_t off = (size_t)snprintf(line, sizeof line, "stack:"), start = off;
    for (char *p = stack, *nl; *p && off < sizeof line - 2; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl) break;
        *nl = 0;
        char frame[512];                    /* "    #N 0xADDR func+off (obj)" */
        if (sscanf(p, " #%*d %*s %511[^\n]", frame) == 1)
            off += (size_t)snprintf(line + off, sizeof line - off, "%s %s", off > start ? " <" : "", frame);
    }
    trace_note(w->trace, line);
}

static void record(struct world *w, struct thread *t, const char *call, const char *tail, long result, bool has_result)
{
    char r[64] = "";
    if (has_result) {
        if (result < 0 && result > -4096) snprintf(r, sizeof r, " = -1 %s", errname(-result));
        else snprintf(r, sizeof r, " = %ld", result);
    }
    trace_event(w->trace, w->now, t->proc->m->name, t->vtid, "%s%s%s", call, r, tail);
    if (t->proc->m->stacks) note_stack(w, t);
}

/* ---- resuming and settling ---- */

static void resume(struct thread *t, int sig)
{
    t->state = TS_RUNNING;
    if (t->on_exit) tracer_syscall(t->tid, sig);
    else tracer_cont(t->tid, sig);
}

static bool pending_events(struct world *w)
{
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *t = w->threads[i];
        if (t->state == TS_DYING || t->awaiting_first_stop) return true;
    }
    return false;
}

bool run_take_early_stop(struct world *w, pid_t pid)
{
    for (int i = 0; i < w->nearly; i++)
        if (w->early_stops[i] == pid) { w->early_stops[i] = w->early_stops[--w->nearly]; return true; }
    return false;
}

/* The machine's command exited: the machine is done, and whatever it left
 * running dies with it (as when a container's main process exits). */
static void machine_exit_check(struct world *w, struct process *p)
{
    struct machine *m = p->m;
    if (p != m->main || m->exited) return;
    m->exited = true;
    m->wstatus = p->wstatus;
    trace_event(w->trace, w->now, m->name, p->vpid, "machine exit %s %d",
                WIFSIGNALED(p->wstatus) ? "signal" : "status",
                WIFSIGNALED(p->wstatus) ? WTERMSIG(p->wstatus) : WEXITSTATUS(p->wstatus));
    machine_kill(w, m);
}

static void thread_died(struct world *w, struct thread *t, int status)
{
    struct process *p = t->proc;
    bool was_live = t->state != TS_DEAD;
    t->state = TS_DEAD;
    thread_drop_copy(t);
    if (!was_live) return;
    if (!(t == p->leader && p->leader_zombie)) p->nlive--;
    if (!t->exit_expected) {
        /* A group death (exit_group, a fatal signal, exec): the rest follow. */
        for (size_t i = 0; i < w->nthreads; i++) {
            struct thread *o = w->threads[i];
            if (o->proc == p && o != t && o->state != TS_DEAD) o->state = TS_DYING;
        }
    }
    if (t->ctid_addr && p->nlive > 0) futex_wake_tid(w, t, 0x7fffffff);
    if (t == p->leader) {
        p->wstatus = status;
        p->exited = true;
        proc_on_exit(w, p);
        machine_exit_check(w, p);
    } else if (p->nlive == 0 && p->leader_zombie) {
        /* The leader exited first; its notice comes now that it is alone. */
        p->leader->state = TS_DYING;
    }
}

static bool fatal_by_default(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT ||
           sig == SIGSYS || sig == SIGTRAP;
}

/* PR_SET_TSC makes rdtsc and rdtscp fault; answer them from virtual time
 * (a 1 GHz TSC counting monotonic nanoseconds). Each read costs a quantum
 * so that a loop waiting on the TSC sees time move. */
static bool emulate_tsc(struct world *w, struct thread *t)
{
    siginfo_t si;
    struct user_regs_struct r;
    unsigned char insn[3];
    if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) != 0 || si.si_code != SI_KERNEL) return false;
    if (tracer_getregs(t->tid, &r) || mem_read(t->tid, r.rip, insn, sizeof insn)) return false;
    bool rdtscp = insn[0] == 0x0f && insn[1] == 0x01 && insn[2] == 0xf9;
    if (!(insn[0] == 0x0f && insn[1] == 0x31) && !rdtscp) return false;
    w->now += w->conf->quantum_ns;
    uint64_t tsc = world_monotonic(w);
    r.rax = tsc & 0xffffffffu;
    r.rdx = tsc >> 32;
    if (rdtscp) r.rcx = 0;      /* TSC_AUX: cpu 0 */
    r.rip += rdtscp ? 3 : 2;
    tracer_setregs(t->tid, &r);
    trace_event(w->trace, w->now, t->proc->m->name, t->vtid, "%s = %llu", rdtscp ? "rdtscp" : "rdtsc",
                (unsigned long long)tsc);
    tracer_cont(t->tid, 0);   /* the signal is dropped */
    return true;
}

static void handle_stop(struct world *w, struct thread *t, int status)
{
    int sig = WSTOPSIG(status), ev = status >> 16;
    if (sig == SIGTRAP && ev == PTRACE_EVENT_SECCOMP) {
        tracer_getregs(t->tid, &t->regs);
        t->state = TS_READY;
        t->steps++;
        return;
    }
    if (sig == (SIGTRAP | 0x80)) {
        struct user_regs_struct regs;
        tracer_getregs(t->tid, &regs);
        t->regs = regs;
        exit_fn fn = t->on_exit;
        t->on_exit = NULL;
        long result = (long)regs.rax;
        if (fn) fn(w, t, result);
        record(w, t, t->pending_text, "", (long)t->regs.rax, true);
        if (t->regs_dirty) { tracer_setregs(t->tid, &t->regs); t->regs_dirty = false; }
        if (t->state == TS_RUNNING) tracer_cont(t->tid, 0);
        return;
    }
    if (sig == SIGTRAP && (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK)) {
        pid_t child = (pid_t)tracer_eventmsg(t->tid);
        proc_on_clone_event(w, t, child, ev);
        if (t->state == TS_RUNNING) resume(t, 0);
        return;
    }
    if (sig == SIGTRAP && ev == PTRACE_EVENT_EXEC) {
        proc_on_exec(w, t);
        resume(t, 0);
        return;
    }
    if (ev == PTRACE_EVENT_STOP) {
        if (t->awaiting_first_stop) { t->awaiting_first_stop = false; return; }
        /* A group-stop: job control is not simulated; carry on. */
        if (t->state == TS_RUNNING) resume(t, 0);
        return;
    }
    if (sig == SIGSEGV && emulate_tsc(w, t)) return;
    if (fatal_by_default(sig) && t->proc->sh && t->proc->sh->act[sig].handler == (uint64_t)SIG_DFL) {
        /* The thread still exists: its stack is the crash's best clue. */
        int n = snprintf(w->crash, sizeof w->crash, "  machine %s thread %d took SIG%s here:\n", t->proc->m->name,
                         t->vtid, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
        if (n > 0 && (size_t)n < sizeof w->crash) stack_format(t->tid, w->crash + n, sizeof w->crash - (size_t)n);
    }
    /* A signal about to be delivered: it is delivered now, at this step. */
    trace_event(w->trace, w->now, t->proc->m->name, t->vtid, "signal %s", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
    resume(t, sig);
}

static void handle_status(struct world *w, pid_t pid, int status)
{
    struct thread *t = world_thread_by_tid(w, pid);
    if (!t) {
        for (size_t i = 0; i < w->nmachines; i++)
            if (w->machines[i].init_pid == pid && (WIFEXITED(status) || WIFSIGNALED(status))) {
                w->machines[i].init_reaped = true;
                for (int k = 0; k < MAX_INITS; k++) if (live_inits[k] == pid) live_inits[k] = 0;
                return;
            }
        if (WIFSTOPPED(status) && w->nearly < 64) w->early_stops[w->nearly++] = pid;
        return;
    }
    if (WIFSTOPPED(status) && status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
        /* A non-leader that execs takes over the leader's tid; the old
         * leader vanishes without a death notice (ptrace(2)). */
        pid_t former = (pid_t)tracer_eventmsg(pid);
        struct thread *execer = former != pid ? world_thread_by_tid(w, former) : NULL;
        if (execer && execer != t) {
            t->state = TS_DEAD;
            t->proc->nlive--;
            execer->tid = pid;
            execer->vtid = t->vtid;
            execer->proc->leader = execer;
            t = execer;
        }
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) thread_died(w, t, status);
    else if (WIFSTOPPED(status)) handle_stop(w, t, status);
}

/* The spin watchdog. Without a PMU a thread is preempted only at syscalls,
 * so one spinning in user space on a flag that only a stopped thread could
 * set never stops. A real-time tick counts how long the running thread has
 * gone without a stop; past spin_limit the run fails with its stack. */
#define TICK_MS 250
static volatile sig_atomic_t stall_ticks;

static void on_tick(int sig) { stall_ticks++; }

static void watchdog_arm(bool on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tick;     /* no SA_RESTART: waitpid returns EINTR */
    if (on) sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, TICK_MS * 1000 }, { 0, TICK_MS * 1000 } };
    if (!on) memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
    stall_ticks = 0;
}

static void spin_detected(struct world *w, struct thread *t)
{
    int status;
    syscall(SYS_tgkill, t->proc->pid, t->tid, SIGSTOP);
    while (waitpid(t->tid, &status, __WALL) < 0 && errno == EINTR) {}
    char stack[4096] = "";
    if (WIFSTOPPED(status)) stack_format(t->tid, stack, sizeof stack);
    world_fail(w, OUT_SPIN, "machine %s thread %d ran %.1fs of real time without a syscall "
               "(spinning on memory another thread would change? dsim preempts only at syscalls)\n%s",
               t->proc->m->name, t->vtid, stall_ticks * TICK_MS / 1000.0, stack);
    t->state = TS_DYING;
}

/* Waits until the running thread has stopped or died and every death or
 * first stop it caused has been seen: the next decision must not depend on
 * when the kernel delivers notices. */
static void settle(struct world *w, struct thread *t)
{
    while (t->state == TS_RUNNING || pending_events(w)) {
        int status;
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) {
            if (errno == EINTR) {
                uint64_t stalled_ns = (uint64_t)stall_ticks * TICK_MS * 1000000ULL;
                if (t->state == TS_RUNNING && stalled_ns >= w->conf->spin_limit_ns) {
                    spin_detected(w, t);
                    return;
                }
                continue;
            }
            if (errno == ECHILD) {
                for (size_t i = 0; i < w->nthreads; i++)
                    if (w->threads[i]->state == TS_DYING || w->threads[i]->state == TS_RUNNING)
                        w->threads[i]->state = TS_DEAD;
                return;
            }
            world_fail(w, OUT_INTERNAL, "waitpid: %s", strerror(errno));
            return;
        }
        stall_ticks = 0;
        handle_status(w, pid, status);
    }
}

static void fence(struct world *w, struct thread *t, const char *call)
{
    char stack[4096];
    stack_format(t->tid, stack, sizeof stack);
    world_fail(w, OUT_FENCE, "unsupported syscall %s in machine %s, thread %d\n%s", call,
               t->proc->m->name, t->vtid, stack);
}

static void finish_syscall(struct thread *t)
{
    t->deadline = UINT64_MAX;
    t->ready = NULL;
    t->woken = t->interrupted = t->timed_out = t->retry = false;
    t->futex_space = 0;
    t->partial = 0;
    thread_drop_copy(t);
}

enum sys_action block(struct thread *t, uint64_t deadline, ready_fn ready)
{
    t->deadline = deadline;
    t->ready = ready;
    t->woken = false;
    return SYS_BLOCK;
}

static void step(struct world *w, struct thread *t)
{
    w->running = t;
    if (t->state == TS_NEW || t->state == TS_HELD) {
        resume(t, 0);
        settle(w, t);
        return;
    }
    char call[512];
    format_call(w, t, call, sizeof call);
    const struct sys_entry *e = sys_lookup(SYSNR(t));
    enum sys_action a;
    /* A call whose condition came true completes; the signal follows it. */
    bool done = t->woken || t->timed_out || (t->ready && t->ready(w, t));
    if (t->interrupted && !done) a = signal_interrupt(w, t, e);
    else a = e && e->handler ? e->handler(w, t) : SYS_FENCE;
    switch (a) {
    case SYS_EMULATE:
        record(w, t, call, "", (long)t->regs.rax, true);
        t->regs.orig_rax = (unsigned long long)-1;
        tracer_setregs(t->tid, &t->regs);
        t->regs_dirty = false;
        finish_syscall(t);
        resume(t, 0);
        break;
    case SYS_PASS:
    case SYS_PASS_EXIT:
        if (a == SYS_PASS) record(w, t, call, "", 0, false);
        else snprintf(t->pending_text, sizeof t->pending_text, "%s", call);
        if (t->regs_dirty) { tracer_setregs(t->tid, &t->regs); t->regs_dirty = false; }
        finish_syscall(t);
        resume(t, 0);
        /* A leader that exits before its threads gives no notice until they go. */
        if (t == t->proc->leader && t->proc->leader_zombie) t->state = TS_HELD;
        break;
    case SYS_BLOCK:
        if (!t->retry) record(w, t, call, " blocks", 0, false);
        t->state = TS_BLOCKED;
        t->retry = true;
        return;
    case SYS_FENCE:
        fence(w, t, call);
        return;
    }
    settle(w, t);
}

/* ---- the loop ---- */

static bool machines_done(struct world *w)
{
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        if (!m->conf->daemon && !m->exited) return false;
    }
    return true;
}

static uint64_t next_event(struct world *w)
{
    uint64_t next = timers_next(w);
    for (size_t i = 0; i < w->nmachines; i++)
        if (!w->machines[i].started && w->machines[i].conf->start_ns < next)
            next = w->machines[i].conf->start_ns;
    for (size_t i = 0; i < w->nthreads; i++)
        if (w->threads[i]->state == TS_BLOCKED && w->threads[i]->deadline < next)
            next = w->threads[i]->deadline;
    return next;
}

static void report_deadlock(struct world *w)
{
    size_t off = (size_t)snprintf(w->reason, sizeof w->reason,
                                  "deadlock: no thread can run and nothing is scheduled");
    w->outcome = OUT_DEADLOCK;
    for (size_t i = 0; i < w->nthreads && off < sizeof w->reason - 200; i++) {
        struct thread *t = w->threads[i];
        if (t->state != TS_BLOCKED && t->state != TS_HELD) continue;
        char call[256], stack[2048] = "";
        if (t->state == TS_BLOCKED) format_call(w, t, call, sizeof call);
        else snprintf(call, sizeof call, "vfork (waiting for its child)");
        stack_format(t->tid, stack, sizeof stack);
        off += (size_t)snprintf(w->reason + off, sizeof w->reason - off,
                                "\n  machine %s thread %d blocked in %s\n%s", t->proc->m->name,
                                t->vtid, call, stack);
    }
}

static void loop(struct world *w, const struct filter_prog *fp)
{
    uint64_t limit = w->conf->duration_ns;
    while (w->outcome == OUT_RUNNING) {
        if (dsim_interrupted) { world_fail(w, OUT_INTERNAL, "interrupted"); return; }
        for (size_t i = 0; i < w->nmachines; i++) {
            struct machine *m = &w->machines[i];
            if (m->started || m->conf->start_ns > w->now) continue;
            if (machine_start(w, m, fp) != 0) {
                world_fail(w, OUT_INTERNAL, "cannot start machine %s: %s", m->name, strerror(errno));
                return;
            }
            for (int k = 0; k < MAX_INITS; k++) if (!live_inits[k]) { live_inits[k] = m->init_pid; break; }
            trace_event(w->trace, w->now, m->name, 2, "machine start");
        }
        timers_fire(w);
        struct thread **runnable = w->runnable;
        size_t n = 0;
        for (size_t i = 0; i < w->nthreads; i++) {
            struct thread *t = w->threads[i];
            if (t->state == TS_BLOCKED) {
                if (t->deadline <= w->now) t->timed_out = true;
                if (t->woken || t->interrupted || t->timed_out || (t->ready && t->ready(w, t)))
                    t->state = TS_READY;
            }
            if ((t->state == TS_READY || t->state == TS_NEW) && !t->awaiting_first_stop)
                runnable[n++] = t;
        }
        if (w->outcome != OUT_RUNNING) return;
        if (machines_done(w)) return;
        if (n == 0) {
            uint64_t next = next_event(w);
            if (next == UINT64_MAX) { report_deadlock(w); return; }
            if (next >= limit) { w->now = limit; break; }
            w->now = next > w->now ? next : w->now;
            continue;
        }
        if (w->now >= limit) break;
        struct thread *t = runnable[prng_below(&w->sched, n)];
        step(w, t);
        w->steps++;
        w->now += w->conf->quantum_ns;
    }
    if (w->outcome == OUT_RUNNING)
        world_fail(w, OUT_TIMEOUT, "simulated time limit of %.3fs passed", (double)limit / 1e9);
}

/* ---- set-up and teardown ---- */

static void teardown(struct world *w)
{
    for (size_t i = 0; i < w->nmachines; i++) machine_kill(w, &w->machines[i]);
    w->running = NULL;
    for (;;) {
        bool live = false;
        for (size_t i = 0; i < w->nthreads; i++)
            if (w->threads[i]->state != TS_DEAD) live = true;
        for (size_t i = 0; i < w->nmachines; i++)
            if (w->machines[i].init_pid > 0 && !w->machines[i].init_reaped) live = true;
        if (!live) break;
        int status;
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) { if (errno == EINTR) continue; break; }
        struct thread *t = world_thread_by_tid(w, pid);
        if (t && (WIFEXITED(status) || WIFSIGNALED(status))) { t->state = TS_DEAD; thread_drop_copy(t); }
        else if (t && WIFSTOPPED(status)) tracer_cont(pid, 0);
        else if (!t) handle_status(w, pid, status);
    }
    for (size_t i = 0; i < w->nprocs; i++) if (w->procs[i]->pidfd >= 0) close(w->procs[i]->pidfd);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void fold_outputs(struct world *w)
{
    char path[512], buf[65536];
    for (size_t i = 0; i < w->nmachines; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/%s.%s", w->run_dir, w->machines[i].name, k ? "stderr" : "stdout");
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            ssize_t n;
            while ((n = read(fd, buf, sizeof buf)) > 0) trace_hash_bytes(w->trace, buf, (size_t)n);
            close(fd);
        }
}

static int run_check(struct world *w)
{
    pid_t pid = fork();
    if (pid == 0) {
        char seed[32];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)w->seed);
        setenv("DSIM_SEED", seed, 1);
        setenv("DSIM_CONFIG_DIR", w->conf->dir, 1);
        if (chdir(w->run_dir) != 0) _exit(126);
        execl("/bin/sh", "sh", "-c", w->conf->check_command, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return status;
}

static void describe_exit(char *buf, size_t len, const char *name, int status)
{
    if (WIFSIGNALED(status))
        snprintf(buf, len, "machine %s was killed by signal %d (SIG%s)", name, WTERMSIG(status),
                 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
    else
        snprintf(buf, len, "machine %s exited with status %d", name, WEXITSTATUS(status));
}

static void judge(struct world *w)
{
    if (w->outcome != OUT_RUNNING) return;
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        if (m->conf->daemon || !m->exited) continue;
        if (WIFEXITED(m->wstatus) && WEXITSTATUS(m->wstatus) == 0) continue;
        w->outcome = OUT_EXIT;
        describe_exit(w->reason, sizeof w->reason, m->name, m->wstatus);
        return;
    }
    w->outcome = OUT_PASS;
}

static char *make_report(struct world *w, size_t recent)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    if (w->crash[0]) fputs(w->crash, f);
    size_t k = 0;
    while (k < recent && trace_recent(w->trace, k)) k++;
    if (k) fprintf(f, "  last %zu events:\n", k);
    while (k-- > 0) fprintf(f, "    %s\n", trace_recent(w->trace, k));
    for (size_t i = 0; i < w->nmachines && !w->exec_stdio; i++) {
        char path[512], line[1024], *lines[10] = { 0 };
        size_t nl = 0;
        snprintf(path, sizeof path, "%s/%s.stderr", w->run_dir, w->machines[i].name);
        FILE *in = fopen(path, "r");
        if (!in) continue;
        while (fgets(line, sizeof line, in)) { free(lines[nl % 10]); lines[nl % 10] = strdup(line); nl++; }
        fclose(in);
        if (nl) fprintf(f, "  machine %s stderr (last lines):\n", w->machines[i].name);
        for (size_t j = nl > 10 ? nl - 10 : 0; j < nl; j++) {
            fprintf(f, "    %s", lines[j % 10]);
            if (!strchr(lines[j % 10], '\n')) fputc('\n', f);
        }
        for (int j = 0; j < 10; j++) free(lines[j]);
    }
    fclose(f);
    return buf;
}

static void keep_outputs(struct world *w, const char *dir)
{
    char cmd[1200];
    mkdir(dir, 0755);
    snprintf(cmd, sizeof cmd, "cp -f '%s'/*.stdout '%s'/*.stderr '%s'/ 2>/dev/null", w->run_dir, w->run_dir, dir);
    if (system(cmd) < 0) {}
}

int run_seed(struct config *c, uint64_t seed, const struct run_opts *o, struct run_result *r)
{
    static struct filter_prog fp;
    memset(r, 0, sizeof *r);
    if (!fp.insns && filter_build(&fp) != 0) {
        snprintf(r->reason, sizeof r->reason, "cannot build the seccomp filter");
        r->outcome = OUT_INTERNAL;
        return -1;
    }
    struct world *w = calloc(1, sizeof *w);
    w->conf = c;
    w->seed = seed;
    w->exec_stdio = o->exec_stdio;
    for (int fd = 1; fd <= 2 && o->exec_stdio; fd++) {
        struct stat st;
        if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
            w->external[w->nexternal].dev = st.st_dev;
            w->external[w->nexternal++].ino = st.st_ino;
        }
    }
    prng_init(&w->sched, seed, "sched");
    w->trace = trace_new(o->trace_out, o->recent ? o->recent : 20);
    const char *tmp = getenv("TMPDIR");
    snprintf(w->run_dir, sizeof w->run_dir, "%s/dsim-run.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(w->run_dir) || machine_write_vfs(w) != 0) {
        snprintf(r->reason, sizeof r->reason, "cannot create a run directory: %s", strerror(errno));
        r->outcome = OUT_INTERNAL;
        trace_free(w->trace);
        free(w);
        return -1;
    }
    w->nmachines = c->nmachines;
    w->machines = calloc(c->nmachines, sizeof *w->machines);
    for (size_t i = 0; i < c->nmachines; i++) {
        struct machine *m = &w->machines[i];
        m->conf = &c->machines[i];
        m->name = m->conf->name;
        m->index = (int)i;
        char name[300];
        snprintf(name, sizeof name, "entropy/%s", m->name);
        prng_init(&m->entropy, seed, name);
        if (o->stacks) {
            size_t nl = strlen(m->name);
            const char *p = strstr(o->stacks, m->name);
            m->stacks = !strcmp(o->stacks, "all") ||
                        (p && (p == o->stacks || p[-1] == ',') && (p[nl] == ',' || p[nl] == 0));
        }
        if (o->exec_stdio) {
            m->out_fd = dup(1);
            m->err_fd = dup(2);
        } else {
            char path[512];
            snprintf(path, sizeof path, "%s/%s.stdout", w->run_dir, m->name);
            m->out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
            snprintf(path, sizeof path, "%s/%s.stderr", w->run_dir, m->name);
            m->err_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
        }
    }
    /* One CPU for the whole run: only one tracee runs at a time anyway. */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
    sched_setaffinity(0, sizeof one, &one);

    watchdog_arm(true);
    loop(w, &fp);
    watchdog_arm(false);
    if (w->outcome == OUT_RUNNING || w->outcome == OUT_PASS) judge(w);
    enum outcome before_teardown = w->outcome;
    teardown(w);
    for (size_t i = 0; i < w->nmachines; i++) { close(w->machines[i].out_fd); close(w->machines[i].err_fd); }
    if (!o->exec_stdio) fold_outputs(w);
    if (before_teardown == OUT_PASS && c->check_command) {
        int st = run_check(w);
        if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            w->outcome = OUT_CHECK;
            snprintf(w->reason, sizeof w->reason, "the check command failed (%s %d)",
                     WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        }
    }
    trace_event(w->trace, w->now, "-", 0, "end %s", outcome_name(w->outcome));
    r->outcome = w->outcome;
    snprintf(r->reason, sizeof r->reason, "%s", w->reason);
    trace_hash_hex(w->trace, r->hash);
    r->vtime_ns = w->now;
    r->steps = w->steps;
    if (w->nmachines == 1 && w->machines[0].exited) r->exit_status = w->machines[0].wstatus;
    if (w->outcome != OUT_PASS) r->report = make_report(w, o->recent ? o->recent : 20);
    if (o->keep_dir) keep_outputs(w, o->keep_dir);
    nftw(w->run_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    trace_free(w->trace);
    for (size_t i = 0; i < w->nthreads; i++) free(w->threads[i]);
    for (size_t i = 0; i < w->nprocs; i++) {
        if (w->procs[i]->sh) sighand_put(w->procs[i]->sh);
        free(w->procs[i]);
    }
    free(w->threads);
    free(w->runnable);
    free(w->procs);
    free(w->machines);
    free(w->timerfds);
    free(w->ptimers);
    free(w);
    return 0;
}
