/* A warm start from a snapshot (docs/design.md §6 "Warm start" and "Not
 * built yet"): the fences a first slice keeps, and the templates. A
 * machine's process at the point is copied by a clone3 it is made to call
 * at its seccomp stop there (CLONE_PARENT: the copy is init's child;
 * set_tid: at a pid of dsim's choosing), which the kernel allows only when
 * the machine's pid namespace is owned by the command's user namespace.
 * Every refusal leaves the start-up as it was at the point. */
#include "supervisor/snapshot.h"
#include "net/sim/netsim.h"
#include "supervisor/warm.h"
#include "world/tracer.h"
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

const char *snapshot_config_fence(const struct config *c, const struct run_opts *o, char *buf, size_t len)
{
    if (o->use_plan && o->nplan) return snprintf(buf, len, "a --plan's faults"), buf;
    if (c->nfaults) return snprintf(buf, len, "[fault] sections"), buf;
    if (c->chaos) return snprintf(buf, len, "[chaos]"), buf;
    if (o->exec_stdio || o->trace_out || o->watch || o->pick || o->stacks)
        return snprintf(buf, len, "a traced or watched run"), buf;
    for (size_t i = 0; i < c->nmachines; i++)
        if (c->machines[i].start_ns)
            return snprintf(buf, len, "machine %s starts later than the others", c->machines[i].name), buf;
    return NULL;
}

/* ---- a system call made by a stopped tracee ---- */

/* A tracee at the seccomp stop of its call at the point: its registers
 * there, and whether it is still at that stop (else at the exit stop of
 * a call dsim made it make). */
struct tracee {
    pid_t pid;
    struct user_regs_struct home;
    bool at_seccomp;
};

/* Where an injected call's arguments go: below the red zone of the stack
 * at the point, put back after the call. */
#define SCRATCH_LEN 512
static uint64_t scratch_addr(const struct tracee *t) { return (t->home.rsp - 128 - SCRATCH_LEN) & ~15ULL; }

static pid_t wait_tracee(pid_t pid, int *status)
{
    pid_t r;
    while ((r = waitpid(pid, status, __WALL)) < 0 && errno == EINTR) {}
    return r;
}

static int event_of(int status) { return WIFSTOPPED(status) ? status >> 16 : -1; }

/* The tracee makes call nr; its result (-errno on failure), or -ENOTRECOVERABLE
 * if it left the stops expected. A child it makes (clone) is *child. It
 * ends at the call's exit stop. */
static long inject(struct tracee *t, long nr, uint64_t a0, uint64_t a1, pid_t *child)
{
    struct user_regs_struct r = t->home;
    int status;
    r.rdi = a0, r.rsi = a1, r.rdx = r.r10 = r.r8 = r.r9 = 0;
    if (t->at_seccomp) {
        /* At the seccomp stop: the pending call becomes nr (the kernel
         * checks it against the filter again; a second trace means allow). */
        r.orig_rax = (unsigned long long)nr;
        if (tracer_setregs(t->pid, &r) != 0) return -ENOTRECOVERABLE;
    } else {
        /* Back to the syscall instruction, which stops at seccomp again. */
        r.rip = t->home.rip - 2, r.rax = (unsigned long long)nr, r.orig_rax = (unsigned long long)-1;
        if (tracer_setregs(t->pid, &r) != 0 || tracer_cont(t->pid, 0) != 0) return -ENOTRECOVERABLE;
        if (wait_tracee(t->pid, &status) != t->pid || event_of(status) != PTRACE_EVENT_SECCOMP)
            return -ENOTRECOVERABLE;
    }
    t->at_seccomp = false;
    if (tracer_syscall(t->pid, 0) != 0) return -ENOTRECOVERABLE;
    for (;;) {
        if (wait_tracee(t->pid, &status) != t->pid || !WIFSTOPPED(status)) return -ENOTRECOVERABLE;
        if (WSTOPSIG(status) == (SIGTRAP | 0x80)) break;
        int ev = event_of(status);
        if ((ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) && child)
            *child = (pid_t)tracer_eventmsg(t->pid);
        if (tracer_syscall(t->pid, 0) != 0) return -ENOTRECOVERABLE;
    }
    if (tracer_getregs(t->pid, &r) != 0) return -ENOTRECOVERABLE;
    return (long)r.rax;
}

/* Back at the seccomp stop of its call at the point, every register as it
 * was there (the syscall instruction run again); 0 or -1. */
static int back_home(struct tracee *t)
{
    if (t->at_seccomp) return 0;
    struct user_regs_struct r = t->home;
    int status;
    r.rip -= 2, r.rax = t->home.orig_rax, r.orig_rax = (unsigned long long)-1;
    if (tracer_setregs(t->pid, &r) != 0 || tracer_cont(t->pid, 0) != 0) return -1;
    if (wait_tracee(t->pid, &status) != t->pid || event_of(status) != PTRACE_EVENT_SECCOMP) return -1;
    if (tracer_getregs(t->pid, &r) != 0 || memcmp(&r, &t->home, sizeof r)) return -1;
    t->at_seccomp = true;
    return 0;
}

/* A copy of t made by t (clone3: CLONE_PARENT, so init's child, at pid
 * set_tid in the machine), traced here and waiting at its first stop.
 * Its host pid, or -errno. */
static long copy_of(struct tracee *t, pid_t set_tid)
{
    uint64_t base = scratch_addr(t);
    char saved[SCRATCH_LEN];
    if (mem_read(t->pid, base, saved, sizeof saved) != 0) return -errno;
    struct clone_args ca;
    memset(&ca, 0, sizeof ca);
    ca.flags = CLONE_PARENT;            /* exit_signal 0: the parent's leader's is used */
    ca.set_tid = base + 96;
    ca.set_tid_size = 1;
    pid_t child = 0;
    long r = -EFAULT;
    if (mem_write(t->pid, base + 96, &set_tid, sizeof set_tid) == 0 && mem_write(t->pid, base, &ca, sizeof ca) == 0)
        r = inject(t, SYS_clone3, base, sizeof ca, &child);
    if (mem_write(t->pid, base, saved, sizeof saved) != 0 && r >= 0) r = -EFAULT;
    if (r < 0) {
        if (child > 0) kill(child, SIGKILL);
        return r;
    }
    int status;
    if (wait_tracee(child, &status) != child || event_of(status) != PTRACE_EVENT_STOP) {
        kill(child, SIGKILL);
        return -ENOTRECOVERABLE;
    }
    return child;
}

/* ---- templates ---- */

/* The pid a machine's template takes, out of the way of a seed's pids. */
#define TEMPLATE_PID 32000

/* Whether every started machine's process stands at a system call's stop
 * (ready, blocked, or the point's own call): where a copy can begin. */
static bool at_call_stops(const struct world *w, char *why, size_t len)
{
    for (size_t i = 0; i < w->nmachines; i++) {
        const struct machine *m = &w->machines[i];
        if (!m->started) continue;
        const struct thread *t = m->main ? m->main->leader : NULL;
        if (!t || t->proc->exited) {
            snprintf(why, len, "machine %s: its command's first process is gone", m->name);
            return false;
        }
        bool ready = t->state == TS_READY || t->state == TS_BLOCKED || t == w->point_thread;
        if (!ready || t->awaiting_first_stop || t->on_exit || t->proc->vfork_parent) {
            snprintf(why, len, "machine %s: its process is not at a system call", m->name);
            return false;
        }
    }
    return true;
}

int snapshot_templates(struct startup *s, char *why, size_t len)
{
    struct world *w = startup_world(s);
    if (!warm_copyable(w, why, len) || !at_call_stops(w, why, len)) return -1;
    if (netsim_opened(w)) {
        snprintf(why, len, "the simulated network was used before the point");
        return -1;
    }
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        if (!m->started) continue;
        if (m->ndirty) {
            snprintf(why, len, "machine %s: file times not yet stamped at the point", m->name);
            return -1;
        }
        struct thread *t = m->main->leader;
        struct tracee orig = { .pid = t->tid, .at_seccomp = true };
        if (tracer_getregs(t->tid, &orig.home) != 0) {
            snprintf(why, len, "machine %s: cannot read its registers: %s", m->name, strerror(errno));
            return -1;
        }
        long tpl = copy_of(&orig, TEMPLATE_PID);
        int back = back_home(&orig);
        if (tpl > 0) {
            /* The copies of it, the rest of a snapshot, are not built yet
             * (docs/design.md "Not built yet"): the template goes. */
            kill((pid_t)tpl, SIGKILL);
            int status;
            wait_tracee((pid_t)tpl, &status);
        }
        if (back != 0) {
            /* Not where the run expects it: the start-up cannot go on. */
            world_fail(w, OUT_INTERNAL, "a snapshot's copy left machine %s's process off its stop", m->name);
            snprintf(why, len, "machine %s: its process did not come back to its stop", m->name);
            return -1;
        }
        if (tpl < 0) {
            if (tpl == -EPERM)
                snprintf(why, len, "machine %s: the kernel refused a copy at a chosen pid (clone3 set_tid: EPERM; "
                         "the machine's pid namespace is not owned by its command's user namespace)", m->name);
            else
                snprintf(why, len, "machine %s: the kernel refused a copy at a chosen pid (clone3 set_tid: %s)",
                         m->name, strerror((int)-tpl));
            return -1;
        }
    }
    snprintf(why, len, "copies of the templates are not built yet");
    return -1;
}
