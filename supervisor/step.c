/* One step: a thread's pending syscall is handled, the thread resumes, and
 * the supervisor waits until it stops again and everything that resume set
 * off (deaths, first stops) has been seen. */
#include "supervisor/step.h"
#include "supervisor/warm.h"
#include "supervisor/callrec.h"
#include "supervisor/machine.h"
#include "world/rewrite.h"
#include "world/clockpage.h"
#include "world/cpuidarm.h"
#include "supervisor/stack.h"
#include "world/tracer.h"
#include "syscalls/sys.h"
#include "net/sim/netsim.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- trace text ---- */

static const char *errname(long e)
{
    const char *n = strerrorname_np((int)e);
    return n ? n : "E?";
}

void format_call(struct world *w, struct thread *t, char *buf, size_t len)
{
    (void)w;
    unsigned char rec[CALL_REC_MAX];
    callrec_format(rec, call_rec_encode(t, rec), buf, len);
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

/* The call's event: its record (len bytes, in a CALL_REC_MAX buffer) and
 * how it ended. */
static void record_call(struct world *w, struct thread *t, unsigned char *rec, size_t len, enum call_end end,
                        long result)
{
    len = call_rec_end(rec, len, end, result);
    trace_record(w->trace, w->now, t->proc->m->name, t->vtid, rec, len, callrec_format);
    if (t->proc->m->stacks) note_stack(w, t);
}

/* ---- resuming and settling ---- */

/* ---- results of passed calls, for --trace ---- */

static void result_noted(struct world *w, struct thread *t, long result) { (void)w, (void)t, (void)result; }

static void note_result(struct world *w, long result)
{
    char text[64];
    if (result < 0 && result > -4096) snprintf(text, sizeof text, "= -1 %s", errname(-result));
    else snprintf(text, sizeof text, "= %ld", result);
    trace_note(w->trace, text);
}

/* Calls that come back to the caller (not exit, exec or sigreturn). */
static bool returns(long nr)
{
    return nr != SYS_exit && nr != SYS_exit_group && nr != SYS_execve && nr != SYS_execveat &&
           nr != SYS_rt_sigreturn;
}

/* Calls through which data comes in: where a run told other things than
 * another first shows (dsim verify notes only their results). */
static bool reads_in(long nr)
{
    return nr == SYS_read || nr == SYS_pread64 || nr == SYS_readv || nr == SYS_preadv || nr == SYS_preadv2 ||
           nr == SYS_recvfrom || nr == SYS_recvmsg || nr == SYS_readlink || nr == SYS_readlinkat;
}

/* Whether a passed call's result is noted: with --trace, every one; in
 * verify's runs, those that read data in, and opens (their outside-read
 * note needs the exit stop). */
static bool result_noted_for(struct world *w, struct thread *t)
{
    long nr = SYSNR(t);
    return w->trace_results && returns(nr) && (!w->results_of_reads || reads_in(nr) || t->exit_note);
}

static void resume(struct thread *t, int sig)
{
    t->state = TS_RUNNING;
    if (t->on_exit || t->exit_quiet) tracer_syscall(t->tid, sig);
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

/* The machine's command exited: the machine is done, and whatever it left
 * running dies with it (as when a container's main process exits). */
static void machine_exit_check(struct world *w, struct process *p)
{
    struct machine *m = p->m;
    if (p != m->main || m->exited) return;
    if (m->crashing) {          /* an injected crash, not the command's exit */
        m->crashing = false;
        m->started = false;
        machine_kill(w, m);
        return;
    }
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
    w->io_epoch++;                  /* its fds may have closed */
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

/* A thread at a syscall's exit stop goes on; after an exec, by making
 * dsim's calls first: mapping its clock page (world/clockpage.h), arming
 * cpuid's fault (world/cpuidarm.h). */
static void go_on(struct world *w, struct thread *t)
{
    if (clockpage_exec_begin(w, t) || cpuid_arm_begin(w, t)) return;
    tracer_cont(t->tid, 0);
}

static void handle_stop(struct world *w, struct thread *t, int status)
{
    int sig = WSTOPSIG(status), ev = status >> 16;
    if (sig == SIGTRAP && ev == PTRACE_EVENT_SECCOMP) {
        if (cpuid_arm_stop(w, t, true)) return;
        tracer_getregs(t->tid, &t->regs);
        if (rewrite_map_entry(w, t)) return;      /* within this step */
        t->state = TS_READY;
        t->steps++;
        return;
    }
    if (sig == (SIGTRAP | 0x80)) {
        if (clockpage_exec_stop(w, t)) {
            if (!t->clock_mapping) go_on(w, t);
            return;
        }
        if (cpuid_arm_stop(w, t, false)) return;
        if (rewrite_map_exit(w, t)) return;
        struct user_regs_struct regs;
        tracer_getregs(t->tid, &regs);
        t->regs = regs;
        exit_fn fn = t->on_exit, quiet = t->exit_quiet;
        t->on_exit = t->exit_quiet = NULL;
        long result = (long)regs.rax;
        if (quiet) quiet(w, t, result);
        if (quiet && !fn && !t->note_result) {
            /* A passed call whose result dsim only looks at: its event was
             * recorded at the entry, as for any passed call. */
        } else if (t->note_result) {
            t->note_result = false;
            note_result(w, result);
            exit_fn more = t->exit_note;
            t->exit_note = NULL;
            if (more) more(w, t, result);
        } else {
            if (fn) fn(w, t, result);
            record_call(w, t, t->pending_rec, t->pending_len, CALL_RESULT, (long)t->regs.rax);
            exit_fn more = t->exit_note;
            t->exit_note = NULL;
            if (more) more(w, t, result);
        }
        if (t->regs_dirty) { tracer_setregs(t->tid, &t->regs); t->regs_dirty = false; }
        /* kill(SIGKILL) and the like: the caller must not return to user
         * mode before the deaths (and the SIGCHLDs they send) are in. */
        if (t->state == TS_RUNNING && pending_events(w)) w->held_at_exit = t;
        else if (t->state == TS_RUNNING) go_on(w, t);
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
        if (t->awaiting_first_stop) {
            t->awaiting_first_stop = false;
            proc_child_clone_view(t);
            return;
        }
        /* A group-stop: job control is not simulated; carry on. */
        if (t->state == TS_RUNNING) resume(t, 0);
        return;
    }
    if (rewrite_trap(w, t, sig)) return;
    if (fatal_by_default(sig) && t->proc->sh && t->proc->sh->act[sig].handler == (uint64_t)SIG_DFL) {
        /* The thread still exists: its stack is the crash's best clue. */
        size_t n = (size_t)snprintf(w->crash, sizeof w->crash, "  machine %s thread %d took SIG%s here:\n",
                                    t->proc->m->name, t->vtid, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
        if (n < sizeof w->crash) {
            stack_format(t->tid, w->crash + n, sizeof w->crash - n);
            n += strlen(w->crash + n);
        }
        /* Its process's other threads, each stopped at a call: in a race,
         * the one that changed the data under the crashing thread. */
        for (size_t i = 0; i < w->nthreads && n < sizeof w->crash - 256; i++) {
            struct thread *o = w->threads[i];
            if (o == t || o->proc != t->proc || (o->state != TS_READY && o->state != TS_BLOCKED)) continue;
            char call[256];
            format_call(w, o, call, sizeof call);
            n += (size_t)snprintf(w->crash + n, sizeof w->crash - n, "  thread %d was %s %s:\n", o->vtid,
                                  o->state == TS_BLOCKED ? "blocked in" : "about to call", call);
            if (n < sizeof w->crash) {
                stack_format(o->tid, w->crash + n, sizeof w->crash - n);
                n += strlen(w->crash + n);
            }
        }
    }
    /* A signal about to be delivered: it is delivered now, at this step. */
    if (sig == SIGCHLD || sig == SIGALRM || sig == SIGVTALRM || sig == SIGPROF) {
        siginfo_t si;
        if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == 0 && siginfo_mend(w, t->proc, &si))
            ptrace(PTRACE_SETSIGINFO, t->tid, 0, &si);
    }
    w->io_epoch++;
    trace_event(w->trace, w->now, t->proc->m->name, t->vtid, "signal %s", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
    resume(t, sig);
}

void handle_status(struct world *w, pid_t pid, int status)
{
    struct thread *t = world_thread_by_tid(w, pid);
    if (!t) {
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            /* Reaped, so its pid may be a new process's at once (the host
             * recycles them quickly when busy): no list may keep it. An
             * init of an earlier incarnation is not its machine's any more
             * but is in the list of inits to kill on an interrupt. */
            machine_forget_init(pid);
            world_take_early_stop(w, pid);
            for (size_t i = 0; i < w->nmachines; i++)
                if (w->machines[i].init_pid == pid) w->machines[i].init_reaped = true;
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
    else if (WIFSTOPPED(status)) {
        if (t == w->running) clockpage_fold(w, t);     /* its clock page's reads are time */
        handle_stop(w, t, status);
    }
}

/* Waits until the running thread has stopped or died and every death or
 * first stop it caused has been seen: the next decision must not depend on
 * when the kernel delivers notices. The watchdog counts from here and from
 * the end of each notice's handling: dsim's own work (a durable copy, a
 * crash's rollback, rewriting code at an exec) is no tracee's time. */
static void settle(struct world *w, struct thread *t)
{
    watchdog_reset();
    while (t->state == TS_RUNNING || pending_events(w)) {
        if (w->held_at_exit && !pending_events(w)) {
            struct thread *h = w->held_at_exit;
            w->held_at_exit = NULL;
            if (h->state == TS_RUNNING) go_on(w, h);
            continue;
        }
        int status;
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) {
            if (errno == EINTR) {
                if (watchdog_check(w, t)) return;
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
        handle_status(w, pid, status);
        watchdog_reset();
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
    free(t->futexv);
    t->futexv = NULL;
    t->nfutexv = 0;
    t->partial = 0;
    t->pending_sig = 0;
    thread_drop_copy(t);
}

/* Calls that change no fd's readiness, nor what the relay may read: they
 * read a clock or an id, or the machine's entropy, and write only the
 * caller's registers and memory. So do the looks at a file that raise no
 * inotify event (a stat, an access check, a readlink, the working
 * directory) and lseek, which moves only a file position (a pipe, socket
 * or inotify fd refuses it). A stat that restamps a file (stat.c) leaves
 * the machine with times to flush, which moves io_epoch at its next step.
 * Every other step moves io_epoch. */
static bool calm(long nr)
{
    switch (nr) {
    case SYS_clock_gettime: case SYS_clock_getres: case SYS_gettimeofday: case SYS_time:
    case SYS_getpid: case SYS_getppid: case SYS_gettid: case SYS_getuid: case SYS_geteuid:
    case SYS_getgid: case SYS_getegid: case SYS_getrandom: case SYS_getcpu: case SYS_sched_yield:
    case SYS_newfstatat: case SYS_stat: case SYS_lstat: case SYS_fstat: case SYS_statx:
    case SYS_access: case SYS_faccessat: case SYS_faccessat2: case SYS_readlink: case SYS_readlinkat:
    case SYS_getcwd: case SYS_lseek:
        return true;
    default:
        return false;
    }
}

/* Calls that move io_epoch (they change readiness) but write to no fd:
 * reads, waits for readiness, futexes and sleeps. None makes a relay end
 * readable (only a tracee's write, close or death does). */
static bool relay_calm(long nr)
{
    switch (nr) {
    case SYS_read: case SYS_readv: case SYS_pread64: case SYS_preadv: case SYS_preadv2:
    case SYS_recvfrom: case SYS_recvmsg: case SYS_recvmmsg:
    case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
    case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_epoll_pwait2:
    case SYS_futex: case SYS_nanosleep: case SYS_clock_nanosleep:
        return true;
    default:
        return false;
    }
}

static void step_call(struct world *w, struct thread *t);

void step(struct world *w, struct thread *t)
{
    /* Another was picked while the last one could have gone on. */
    if (w->running && w->running != t && w->running->state == TS_READY) w->running->nivcsw++;
    w->running = t;
    clockpage_refresh(w, t);
    uint64_t before = w->io_epoch;
    bool fresh = t->state == TS_NEW || t->state == TS_HELD;
    if (fresh || !calm(SYSNR(t)) || t->proc->m->ndirty) w->io_epoch++;
    /* A poll of this thread's one fd that found it ready at the epoch this
     * step starts in stands (nothing ran since). */
    t->ready_known = t->ready == fd_ready_check && t->ready_epoch == before;
    if (!fresh && w->io_epoch != before && relay_calm(SYSNR(t))) {
        netsim_quiet_through(w, before);
        w->io_calm_moves++;
    }
    if (t->state == TS_NEW || t->state == TS_HELD) {
        resume(t, 0);
        settle(w, t);
        return;
    }
    /* Files the machine changed in earlier steps get their times now: the
     * changes are done, and no thread of it has looked yet. */
    if (t->proc->m->ndirty) ftimes_flush(w, t->proc->m);
    if (warm_due_at_call(w, t)) {
        if (w->warm_stop) {         /* a snapshot's start-up: stop here (step_from_point goes on) */
            w->at_point = true;
            w->point_thread = t;
            return;
        }
        warm_point(w);
    }
    step_call(w, t);
}

void step_from_point(struct world *w, struct thread *t)
{
    warm_point(w);
    /* Its step() ran at the start-up's io_epoch, another world's: its
     * fd must be polled again in this seed. */
    t->ready_known = false;
    step_call(w, t);
}

static void step_call(struct world *w, struct thread *t)
{
    unsigned char call[CALL_REC_MAX];
    size_t clen = call_rec_encode(t, call);
    const struct sys_entry *e = sys_lookup(SYSNR(t));
    enum sys_action a;
    /* A call whose condition came true completes; the signal follows it. */
    bool done = t->woken || t->timed_out;
    if (!done && t->ready) {
        done = t->ready_known || t->ready(w, t);
        /* Its fd polled ready now (or at this epoch): the handler need not poll it again. */
        if (done && t->ready == fd_ready_check && t->copy_ready) t->ready_copy = t->copy_fd;
    }
    t->ready_known = false;
    t->exit_note = NULL;
    if (t->interrupted && !done) a = signal_interrupt(w, t, e);
    else a = e && e->handler ? e->handler(w, t) : SYS_FENCE;
    t->ready_copy = -1;
    if (a == SYS_BLOCK && t->pending_sig) a = signal_before_block(w, t, e);
    switch (a) {
    case SYS_EMULATE:
        record_call(w, t, call, clen, CALL_RESULT, (long)t->regs.rax);
        t->regs.orig_rax = (unsigned long long)-1;
        tracer_setregs(t->tid, &t->regs);
        t->regs_dirty = false;
        finish_syscall(t);
        resume(t, 0);
        break;
    case SYS_PASS:
    case SYS_PASS_EXIT:
        if (a == SYS_PASS) {
            record_call(w, t, call, clen, CALL_NO_RESULT, 0);
        } else {
            memcpy(t->pending_rec, call, clen);
            t->pending_len = clen;
        }
        /* --trace: the kernel's result as a note (not hashed: the event
         * line stays what it is without --trace). */
        if (a == SYS_PASS && result_noted_for(w, t)) {
            t->note_result = true;
            t->on_exit = result_noted;
        }
        if (t->regs_dirty) { tracer_setregs(t->tid, &t->regs); t->regs_dirty = false; }
        finish_syscall(t);
        resume(t, 0);
        /* A leader that exits before its threads gives no notice until they go. */
        if (t == t->proc->leader && t->proc->leader_zombie) t->state = TS_HELD;
        break;
    case SYS_BLOCK:
        if (!t->retry) {
            record_call(w, t, call, clen, CALL_BLOCKS, 0);
            t->blocked_since = w->now;
            t->nvcsw++;
        }
        t->state = TS_BLOCKED;
        t->retry = true;
        return;
    case SYS_FENCE:
        record_call(w, t, call, clen, CALL_FENCE, 0);   /* in the trace and its hash */
        char text[512];
        callrec_format(call, clen, text, sizeof text);
        fence(w, t, text);
        return;
    }
    settle(w, t);
}

void settle_all(struct world *w)
{
    struct thread none = { .state = TS_DEAD };
    settle(w, &none);
}

/* A killed init dies once the kernel has run it, which on a busy host can
 * be long after its machine's last thread: until then its mount namespace
 * holds the overlay on the machine's upper layers, which a restart would
 * mount a second time (overlayfs: "upperdir is in-use ... undefined
 * behavior") and a crash's rollback changes underneath. */
void settle_machine_gone(struct world *w, struct machine *m)
{
    while (m->init_pid > 0 && !m->init_reaped) {
        int status;
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid > 0) handle_status(w, pid, status);
        else if (errno != EINTR) break;
    }
}
