/* Processes and threads: clone, fork, vfork, exec, exit, wait. The kernel
 * does the real work; the supervisor keeps the family tree it needs to know
 * when a wait can return, and never lets one sleep in the kernel. */
#include "syscalls/sys.h"
#include "world/rewrite.h"
#include "world/clockpage.h"
#include "world/tracer.h"
#include <elf.h>
#include <sys/ptrace.h>
#include <sched.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sched.h>


#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC | \
                  CLONE_NEWUSER | CLONE_NEWCGROUP)

/* The thread's id inside its PID namespace, from the last NSpid field. */
static pid_t ns_tid(pid_t tid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", tid);
    FILE *f = fopen(path, "r");
    pid_t v = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "NSpid:", 6) == 0) {
            char *last = strrchr(line, '\t');
            v = last ? (pid_t)atoi(last + 1) : 0;
            break;
        }
    fclose(f);
    return v;
}

/* The caller sees the flags it passed, though the kernel was given them
 * without CLONE_UNTRACED. */
static void put_back_clone_flags(struct thread *t)
{
    if (!t->restore_clone_flags) return;
    t->restore_clone_flags = false;
    if (t->clone3_args) {
        mem_write(t->tid, t->clone3_args, &t->clone_flags, sizeof t->clone_flags);
    } else {                    /* at the exit stop: the registers are written back */
        t->regs.rdi = t->clone_flags;
        t->regs_dirty = true;
    }
}

static void clone_done(struct world *w, struct thread *t, long result) { put_back_clone_flags(t); }

void proc_child_clone_view(struct thread *c)
{
    if (!c->restore_clone_flags) return;
    c->restore_clone_flags = false;
    if (c->clone3_args) {
        mem_write(c->tid, c->clone3_args, &c->clone_flags, sizeof c->clone_flags);
        return;
    }
    struct user_regs_struct r;
    if (tracer_getregs(c->tid, &r) == 0) {
        r.rdi = c->clone_flags;
        tracer_setregs(c->tid, &r);
    }
}

/* A SCHED_DEADLINE thread cannot fork without reset-on-fork (sched_fork). */
static enum sys_action start_clone(struct thread *t, unsigned long flags, uint64_t ctid)
{
    struct sched_state child;
    if (flags & NS_FLAGS) return SYS_FENCE;
    if (sched_fork(&child, &t->sched) < 0) return emulate(t, -EAGAIN);
    t->call.clone.flags = flags;
    t->call.clone.ctid = ctid;
    t->on_exit = clone_done;
    return SYS_PASS_EXIT;
}

/* CLONE_UNTRACED would give a child dsim never sees: the kernel is given
 * the flags without it, in rdi for clone, in clone_args for clone3. */
enum sys_action sys_clone(struct world *w, struct thread *t)
{
    unsigned long flags = ARG0(t);
    enum sys_action a = start_clone(t, flags & ~(unsigned long)CLONE_UNTRACED, ARG3(t));
    if (a == SYS_PASS_EXIT && (flags & CLONE_UNTRACED)) {
        t->clone_flags = flags;
        t->clone3_args = 0;
        t->restore_clone_flags = true;
        t->regs.rdi = flags & ~(unsigned long)CLONE_UNTRACED;
        t->regs_dirty = true;
    }
    return a;
}

enum sys_action sys_fork(struct world *w, struct thread *t) { return start_clone(t, SIGCHLD, 0); }
enum sys_action sys_vfork(struct world *w, struct thread *t)
{
    return start_clone(t, CLONE_VM | CLONE_VFORK | SIGCHLD, 0);
}

enum sys_action sys_clone3(struct world *w, struct thread *t)
{
    struct clone_args a;
    if (ARG1(t) < 64) return emulate(t, -EINVAL);
    memset(&a, 0, sizeof a);
    if (mem_read(t->tid, ARG0(t), &a, 64)) return emulate(t, -EFAULT);
    enum sys_action r = start_clone(t, (unsigned long)a.flags & ~(unsigned long)CLONE_UNTRACED, a.child_tid);
    if (r == SYS_PASS_EXIT && (a.flags & CLONE_UNTRACED)) {
        uint64_t traced = a.flags & ~(uint64_t)CLONE_UNTRACED;
        if (mem_write(t->tid, ARG0(t), &traced, sizeof traced)) return emulate(t, -EFAULT);
        t->clone_flags = a.flags;
        t->clone3_args = ARG0(t);
        t->restore_clone_flags = true;
    }
    return r;
}

void proc_on_clone_event(struct world *w, struct thread *parent, pid_t child_tid, int event)
{
    unsigned long flags = parent->call.clone.flags;
    struct process *pp = parent->proc, *cp = pp;
    pid_t vtid = ns_tid(child_tid);
    if (!(flags & CLONE_THREAD)) {
        cp = world_add_process(w, pp->m, child_tid, vtid);
        cp->parent = (flags & CLONE_PARENT) ? pp->parent : pp;
        if (flags & CLONE_VM) cp->mm = pp->mm;
        if (flags & CLONE_SIGHAND) { cp->sh = pp->sh; pp->sh->refs++; }
        else cp->sh = sighand_copy(w, pp->sh);
        cp->code = flags & CLONE_VM ? code_sites_get(pp->code) : code_sites_copy(pp->code);
        /* The page is shared memory: a fork's copy of the address space
         * maps the same page, as CLONE_VM shares it. */
        cp->clock = clock_map_get(pp->clock);
        cp->clock_stub = pp->clock_stub;
        if (!(flags & CLONE_VM)) ipc_fork(w, pp, cp);
        /* One fd table for two processes: neither keeps copies (fdcache.c). */
        if (flags & CLONE_FILES) fdcache_stop(pp), fdcache_stop(cp);
    } else if (!(flags & CLONE_FILES)) {
        fdcache_stop(pp);               /* a thread with a table of its own */
    }
    struct thread *c = world_add_thread(w, cp, child_tid, vtid);
    sched_fork(&c->sched, &parent->sched);
    c->awaiting_first_stop = !world_take_early_stop(w, child_tid);
    /* The child's copy of the caller's view: its registers, or (without
     * CLONE_VM) its own copy of clone3's arguments. */
    if (parent->restore_clone_flags && (!parent->clone3_args || !(flags & CLONE_VM))) {
        c->restore_clone_flags = true;
        c->clone_flags = parent->clone_flags;
        c->clone3_args = parent->clone3_args;
        if (!c->awaiting_first_stop) proc_child_clone_view(c);
    }
    if (flags & CLONE_CHILD_CLEARTID) c->ctid_addr = parent->call.clone.ctid;
    trace_event(w->trace, w->now, pp->m->name, parent->vtid, "%s %d",
                flags & CLONE_THREAD ? "new thread" : "new process", vtid);
    if (event == PTRACE_EVENT_VFORK) {
        parent->state = TS_HELD;
        cp->vfork_parent = parent;
    }
}

static void release_vfork_parent(struct process *p)
{
    if (p->vfork_parent && p->vfork_parent->state == TS_HELD) p->vfork_parent->state = TS_NEW;
    p->vfork_parent = NULL;
}

/* Reseeds AT_RANDOM, tells the virtual CPU's AT_HWCAP and AT_HWCAP2, and
 * hides the vDSO (so clocks become syscalls), unless its clock functions
 * read the clock page (world/clockpage.h). */
static void patch_auxv(struct world *w, struct thread *t, bool hide_vdso)
{
    t->proc->vdso_hidden = hide_vdso;
    struct user_regs_struct r;
    if (tracer_getregs(t->tid, &r)) return;
    uint64_t sp = r.rsp, word;
    if (mem_read(t->tid, sp, &word, 8)) return;
    uint64_t p = sp + 8 + (word + 1) * 8;                  /* past argc, argv, NULL */
    for (int i = 0; i < 100000; i++, p += 8) {             /* past envp and its NULL */
        if (mem_read(t->tid, p, &word, 8)) return;
        if (!word) break;
    }
    p += 8;
    for (int i = 0; i < 64; i++, p += 16) {
        uint64_t pair[2];
        if (mem_read(t->tid, p, pair, sizeof pair) || pair[0] == AT_NULL) break;
        if (pair[0] == AT_RANDOM) {
            unsigned char bytes[16];
            random_fill(w, t, bytes, sizeof bytes);
            mem_write(t->tid, pair[1], bytes, sizeof bytes);
        } else if (pair[0] == AT_SYSINFO_EHDR && hide_vdso) {
            uint64_t zero = 0;
            mem_write(t->tid, p + 8, &zero, 8);
        } else if (w->cpuid_virtual && vcpu_auxv(&w->vcpu, pair[0], &word)) {
            mem_write(t->tid, p + 8, &word, 8);     /* the virtual CPU's (code/vcpu.h) */
        }
    }
}

void proc_on_exec(struct world *w, struct thread *t)
{
    struct process *p = t->proc;
    /* The other threads die; each sends a death notice. */
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *o = w->threads[i];
        if (o->proc == p && o != t && o->state != TS_DEAD) o->state = TS_DYING;
    }
    ipc_mm_left(w, p, p->mm);
    p->mm = ++w->next_mm;
    t->ctid_addr = 0;
    if (p->sh->refs > 1) {
        struct sighand *own = sighand_copy(w, p->sh);
        sighand_put(p->sh);
        p->sh = own;
    }
    sighand_exec_reset(p->sh);
    ptimers_exec(w, p);
    clock_map_put(p->clock);
    p->clock = NULL;
    p->clock_stub = 0;
    p->cpuid_arm_due = w->cpuid_virtual && !w->cpuid_rewrite;    /* execve undid it (world/cpuidarm.h) */
    if (w->conf->clock_reads == CLOCK_READS_PAGE) {
        rewrite_exec(w, t);
        patch_auxv(w, t, !p->clock_stub);
    } else {
        patch_auxv(w, t, true);
        rewrite_exec(w, t);
    }
    release_vfork_parent(p);
}

enum sys_action sys_execve(struct world *w, struct thread *t)
{
    fdcache_forget_all(t->proc);        /* close-on-exec fds close now (fdcache.c) */
    t->on_exit = clone_done;
    return SYS_PASS_EXIT;
}

enum sys_action sys_exit(struct world *w, struct thread *t)
{
    struct process *p = t->proc;
    t->exit_expected = true;
    if (t == p->leader && p->nlive > 1) {
        p->leader_zombie = true;
        p->nlive--;
    }
    return SYS_PASS;
}

enum sys_action sys_exit_group(struct world *w, struct thread *t)
{
    fdcache_forget_all(t->proc);        /* the kernel's close of its fds is the last */
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *o = w->threads[i];
        if (o->proc == t->proc && o != t && o->state != TS_DEAD) o->state = TS_DYING;
    }
    return SYS_PASS;
}

/* Where p's orphans go (find_new_reaper): the nearest ancestor that is a
 * child subreaper (PR_SET_CHILD_SUBREAPER) and still lives, else init
 * (NULL), which reaps them without dsim. */
static struct process *new_reaper(struct process *p)
{
    for (struct process *a = p->parent; a; a = a->parent)
        if (a->subreaper && !a->exited) return a;
    return NULL;
}

/* A process's real uid as its own user namespace numbers it (what a
 * SIGCHLD's or waitid's si_uid shows a parent in that namespace), from
 * the host's view in /proc and its uid_map; 0 if unknown. */
static uid_t proc_ns_uid(pid_t pid)
{
    char path[64], line[256];
    unsigned long host = 0, in, out, count;
    bool got = false;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = pid > 0 ? fopen(path, "re") : NULL;
    while (f && !got && fgets(line, sizeof line, f)) got = sscanf(line, "Uid: %lu", &host) == 1;
    if (f) fclose(f);
    snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
    f = got ? fopen(path, "re") : NULL;
    uid_t uid = 0;
    while (f && fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3)
        if (host >= out && host - out < count) uid = (uid_t)(in + (host - out));
    if (f) fclose(f);
    return uid;
}

/* A SIGCHLD's si_utime, in clock ticks (USER_HZ, 100 a second): the
 * child's CPU time as dsim counts it (its threads' steps times the
 * quantum, all user time), without its own children's, as Linux counts it
 * (the host's ticks were another number in every run). */
static long chld_utime(const struct world *w, const struct process *c)
{
    return (long)(process_steps(w, c) * w->conf->quantum_ns / 10000000ULL);
}

/* What a wait or a SIGCHLD tells of an exited child: si_code and
 * si_status as waitid gives them. */
static struct chld_info chld_info_of(const struct world *w, const struct process *c)
{
    struct chld_info i = { .pid = c->vpid, .uid = proc_ns_uid(c->parent ? c->parent->pid : 0),
                           .utime = chld_utime(w, c) };
    if (WIFSIGNALED(c->wstatus)) i.code = WCOREDUMP(c->wstatus) ? CLD_DUMPED : CLD_KILLED, i.status = WTERMSIG(c->wstatus);
    else i.code = CLD_EXITED, i.status = WEXITSTATUS(c->wstatus);
    return i;
}

/* The parent learns of an exited child: SIGCHLD, and a parent that ignores
 * it has the kernel reap the child at once. A child whose kernel parent is
 * init (a warm copy's) has dsim send the SIGCHLD the kernel would have,
 * unless the parent ignores it (the kernel sends none then): its siginfo
 * is made the kernel's when it is delivered (step.c). */
static void notify_parent(struct world *w, struct process *child)
{
    struct process *parent = child->parent;
    if (!parent || !parent->sh) return;
    unsigned slot = parent->nexit_times++ % 8;
    parent->exit_times[slot].vpid = child->vpid;
    parent->exit_times[slot].utime = chld_utime(w, child);
    struct sigaction_lite *a = &parent->sh->act[SIGCHLD];
    if (a->handler == (uint64_t)SIG_IGN || (a->flags & SA_NOCLDWAIT)) child->reaped = true;
    if (child->parent_emulated && a->handler != (uint64_t)SIG_IGN && !parent->exited) {
        if (!parent->chld_sent) parent->chld = chld_info_of(w, child);   /* a second one merges into the first */
        parent->chld_sent = kill(parent->pid, SIGCHLD) == 0;
    }
    signal_generated(w, parent, NULL, SIGCHLD);
}

bool proc_chld_mend(struct world *w, struct process *p, siginfo_t *si)
{
    bool sent = p->chld_sent;       /* pending SIGCHLDs are one: this is it */
    p->chld_sent = false;
    if (sent && si->si_code == SI_USER && si->si_pid == 0) {
        /* dsim's, for a warm copy: the kernel's siginfo, not a kill's. */
        memset(si, 0, sizeof *si);
        si->si_signo = SIGCHLD;
        si->si_code = p->chld.code;
        si->si_pid = p->chld.pid;
        si->si_uid = p->chld.uid;
        si->si_status = p->chld.status;
        si->si_utime = p->chld.utime;
        return true;
    }
    if (si->si_code < CLD_EXITED || si->si_code > CLD_CONTINUED) return false;
    const struct process *c = world_proc_by_vpid(p->m, w, si->si_pid);
    unsigned n = p->nexit_times < 8 ? p->nexit_times : 8, k = 0, slot = 0;
    for (; k < n; k++) {            /* newest first: a pid may come again */
        slot = (p->nexit_times - 1 - k) % 8;
        if (p->exit_times[slot].vpid == si->si_pid) break;
    }
    if (k < n) si->si_utime = p->exit_times[slot].utime;
    else if (c && c->parent == p) si->si_utime = chld_utime(w, c);
    else return false;
    si->si_stime = 0;
    return true;
}

void proc_on_exit(struct world *w, struct process *p)
{
    release_vfork_parent(p);
    ipc_mm_left(w, p, p->mm);
    fdcache_forget_all(p);                  /* killed: its fds are closed */
    if (p->pidfd >= 0) close(p->pidfd);     /* nothing left to copy fds from */
    p->pidfd = -1;
    struct process *reaper = new_reaper(p);
    for (size_t i = 0; i < w->nprocs; i++) {
        struct process *c = w->procs[i];
        if (c->parent != p) continue;
        c->parent = reaper;
        /* A zombie (its death already seen) is announced to its new parent. */
        if (reaper && c->exited && !c->reaped) notify_parent(w, c);
    }
    notify_parent(w, p);
}

static void subreaper_done(struct world *w, struct thread *t, long result)
{
    if (result == 0) t->proc->subreaper = t->call.subreaper.arg != 0;
}

/* prctl(PR_SET_CHILD_SUBREAPER): the kernel's, and dsim's family tree. */
enum sys_action proc_set_subreaper(struct world *w, struct thread *t)
{
    t->call.subreaper.arg = ARG1(t);
    t->on_exit = subreaper_done;
    return SYS_PASS_EXIT;
}

/* ---- wait ---- */

/* A process's process group as its machine numbers it (the last NSpgid
 * field), or 0. Read only for waits on a group. */
static pid_t machine_pgid(pid_t host_pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", host_pid);
    FILE *f = fopen(path, "re");
    pid_t v = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "NSpgid:", 7) == 0) {
            char *last = strrchr(line, '\t');
            v = last ? (pid_t)atoi(last + 1) : 0;
            break;
        }
    if (f) fclose(f);
    return v;
}

/* A child's process group: a warm copy's is kept from its last reading,
 * since init reaps its kernel zombie at once and /proc forgets it then (a
 * cold run's zombie stays until its parent waits). */
static pid_t proc_pgid(const struct process *c)
{
    pid_t g = machine_pgid(c->pid);
    struct process *k = (struct process *)c;
    if (g) k->pgid_seen = g;
    return g ? g : c->parent_emulated ? c->pgid_seen : 0;
}

void proc_pgid_note(struct process *p) { p->pgid_seen = machine_pgid(p->pid); }

/* which as wait4 takes it: > 0 a pid, -1 any child, 0 the caller's group,
 * < -1 the group -which. */
static bool child_matches(const struct process *c, const struct process *p, long which)
{
    if (c->parent != p || c->reaped) return false;
    if (which > 0) return c->vpid == (pid_t)which;
    if (which == -1) return true;
    pid_t group = which == 0 ? machine_pgid(p->pid) : (pid_t)-which;
    return group && proc_pgid(c) == group;
}

static bool has_zombie(struct world *w, struct process *p, long which)
{
    for (size_t i = 0; i < w->nprocs; i++)
        if (child_matches(w->procs[i], p, which) && w->procs[i]->exited) return true;
    return false;
}

/* The child a wait collects: the first made (the kernel's list of a
 * parent's children is in fork order), or NULL. */
static struct process *first_zombie(struct world *w, struct process *p, long which)
{
    for (size_t i = 0; i < w->nprocs; i++)
        if (child_matches(w->procs[i], p, which) && w->procs[i]->exited) return w->procs[i];
    return NULL;
}

/* Whether the kernel knows a child of p's that matches: one not a warm
 * copy's (whose kernel parent is init). */
static bool has_kernel_child(struct world *w, struct process *p, long which)
{
    for (size_t i = 0; i < w->nprocs; i++)
        if (child_matches(w->procs[i], p, which) && !w->procs[i]->parent_emulated) return true;
    return false;
}

static bool has_child(struct world *w, struct process *p, long which)
{
    for (size_t i = 0; i < w->nprocs; i++)
        if (child_matches(w->procs[i], p, which)) return true;
    return false;
}

/* The parent collected child vpid: as on Linux, the child's CPU time (and
 * that of the children it waited for) becomes the parent's children's.
 * Returns those steps (0 if the child is not found). */
static uint64_t mark_reaped(struct world *w, struct process *p, pid_t vpid, bool reap)
{
    for (size_t i = 0; i < w->nprocs; i++) {
        struct process *c = w->procs[i];
        if (!child_matches(c, p, vpid) || !c->exited) continue;
        uint64_t steps = process_steps(w, c) + c->children_steps;
        if (reap && !c->reaped) p->children_steps += steps;
        if (reap) c->reaped = true;
        return steps;
    }
    return 0;
}

/* The rusage a wait reports: the child's CPU time on virtual time (user
 * time, as getrusage does), nothing of the host's. */
static void rusage_of(struct world *w, uint64_t steps, struct rusage *ru)
{
    memset(ru, 0, sizeof *ru);
    uint64_t ns = steps * w->conf->quantum_ns;
    ru->ru_utime.tv_sec = (time_t)(ns / 1000000000);
    ru->ru_utime.tv_usec = (suseconds_t)(ns % 1000000000 / 1000);
}

static void put_rusage(struct world *w, struct thread *t, uint64_t addr, uint64_t steps)
{
    struct rusage ru;
    rusage_of(w, steps, &ru);
    if (addr) mem_write(t->tid, addr, &ru, sizeof ru);
}

static void wait4_done(struct world *w, struct thread *t, long result)
{
    if (result > 0) put_rusage(w, t, ARG3(t), mark_reaped(w, t->proc, (pid_t)result, true));
}

static bool wait4_ready(struct world *w, struct thread *t)
{
    return has_zombie(w, t->proc, (long)(int)ARG0(t)) || !has_child(w, t->proc, (long)(int)ARG0(t));
}

/* wait4 or waitid would collect a warm copy's child, or find nothing yet
 * where the kernel knows no child: dsim answers (the kernel would say
 * ECHILD). z is the child, or NULL for WNOHANG's nothing yet. */
static bool wait_emulated(struct world *w, struct thread *t, long which, bool nohang, struct process **z)
{
    *z = first_zombie(w, t->proc, which);
    if (*z) return (*z)->parent_emulated;
    return nohang && !has_kernel_child(w, t->proc, which);
}

/* wait4 answered by dsim: the child's status and rusage written, it is
 * reaped (init reaped its kernel zombie), as kernel_wait4 does. */
static enum sys_action wait4_emulate(struct world *w, struct thread *t, struct process *z)
{
    if (!z) return emulate(t, 0);
    int status = z->wstatus;
    uint64_t steps = mark_reaped(w, t->proc, z->vpid, true);
    if (ARG1(t) && mem_write(t->tid, ARG1(t), &status, sizeof status) != 0) return emulate(t, -EFAULT);
    struct rusage ru;
    rusage_of(w, steps, &ru);
    if (ARG3(t) && mem_write(t->tid, ARG3(t), &ru, sizeof ru) != 0) return emulate(t, -EFAULT);
    return emulate(t, z->vpid);
}

enum sys_action sys_wait4(struct world *w, struct thread *t)
{
    long which = (int)ARG0(t);
    struct process *z;
    if (!has_child(w, t->proc, which)) return SYS_PASS;          /* ECHILD */
    if (wait_emulated(w, t, which, ARG2(t) & WNOHANG, &z)) return wait4_emulate(w, t, z);
    if ((ARG2(t) & WNOHANG) || z) {
        t->on_exit = wait4_done;
        return SYS_PASS_EXIT;
    }
    return block(t, UINT64_MAX, wait4_ready);
}

/* The process a tracee's pidfd names (by the host pid its fdinfo gives),
 * or NULL: not a pidfd, or not a process of the run. */
struct process *pidfd_process(struct world *w, struct thread *t, int fd)
{
    int copy = fd_copy(w, t, fd);
    char path[64], line[128];
    pid_t host = 0;
    if (copy < 0) return NULL;
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", copy);
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Pid:", 4)) host = (pid_t)atoi(line + 4);
    if (f) fclose(f);
    close(copy);
    for (size_t i = 0; i < w->nprocs && host > 0; i++)
        if (w->procs[i]->pid == host) return w->procs[i];
    return NULL;
}

/* waitid's (idtype, id) as wait4's which; LONG_MIN if the kernel refuses
 * them (EINVAL: it is passed, and fails at once). */
static long waitid_which(struct world *w, struct thread *t)
{
    int idtype = (int)ARG0(t), id = (int)ARG1(t);
    switch (idtype) {
    case P_ALL: return -1;
    case P_PID: return id > 0 ? id : LONG_MIN;
    case P_PGID: return id >= 0 ? (id ? -(long)id : 0) : LONG_MIN;
    case P_PIDFD: {
        struct process *p = pidfd_process(w, t, id);
        return p ? p->vpid : LONG_MIN;
    }
    }
    return LONG_MIN;
}

static void waitid_done(struct world *w, struct thread *t, long result)
{
    int pid = 0;
    uint64_t steps = 0;
    if (result == 0 && ARG2(t) && mem_read(t->tid, ARG2(t) + 16, &pid, sizeof pid) == 0 && pid > 0)
        steps = mark_reaped(w, t->proc, pid, !(ARG3(t) & WNOWAIT));
    if (result == 0) put_rusage(w, t, ARG4(t), steps);
}

/* A wait for stops or continuations only: job control is not simulated,
 * so none comes; it ends when no child is left (ECHILD). */
static bool waitid_ready(struct world *w, struct thread *t)
{
    long which = t->call.waitid.which;
    bool exits = ARG3(t) & WEXITED;
    return (exits && has_zombie(w, t->proc, which)) || !has_child(w, t->proc, which);
}

/* waitid answered by dsim (as wait4_emulate): the fields of infop the
 * kernel writes (all 0 for WNOHANG's nothing yet), the rusage; WNOWAIT
 * leaves the child to be waited for again. */
static enum sys_action waitid_emulate(struct world *w, struct thread *t, struct process *z)
{
    struct { int signo, err, code, pad; pid_t pid; uid_t uid; int status; } info = { 0 };
    if (z) {
        struct chld_info c = chld_info_of(w, z);
        info = (typeof(info)){ .signo = SIGCHLD, .code = c.code, .pid = c.pid, .uid = c.uid, .status = c.status };
        uint64_t steps = mark_reaped(w, t->proc, z->vpid, !(ARG3(t) & WNOWAIT));
        struct rusage ru;
        rusage_of(w, steps, &ru);
        if (ARG4(t) && mem_write(t->tid, ARG4(t), &ru, sizeof ru) != 0) return emulate(t, -EFAULT);
    }
    if (!ARG2(t)) return emulate(t, 0);
    bool bad = mem_write(t->tid, ARG2(t), &info, 12) != 0 ||
               mem_write(t->tid, ARG2(t) + 16, &info.pid, 12) != 0;
    return emulate(t, bad ? -EFAULT : 0);
}

enum sys_action sys_waitid(struct world *w, struct thread *t)
{
    int options = (int)ARG3(t);
    /* What the kernel refuses at once, it refuses here too. */
    if ((options & ~(WNOHANG | WEXITED | WSTOPPED | WCONTINUED | WNOWAIT | __WNOTHREAD | __WCLONE | __WALL)) ||
        !(options & (WEXITED | WSTOPPED | WCONTINUED)))
        return SYS_PASS;
    long which = waitid_which(w, t);
    if (which == LONG_MIN || !has_child(w, t->proc, which)) return SYS_PASS;     /* EINVAL, EBADF, ECHILD */
    t->call.waitid.which = which;
    struct process *z = NULL;
    bool exits = options & WEXITED;
    if (exits && wait_emulated(w, t, which, options & WNOHANG, &z)) return waitid_emulate(w, t, z);
    if (!exits && (options & WNOHANG) && !has_kernel_child(w, t->proc, which)) return waitid_emulate(w, t, NULL);
    if ((options & WNOHANG) || (exits && z)) {
        t->on_exit = waitid_done;
        return SYS_PASS_EXIT;
    }
    return block(t, UINT64_MAX, waitid_ready);
}

static void getppid_done(struct world *w, struct thread *t, long result)
{
    (void)w, (void)result;
    if (t->proc->parent) {
        t->regs.rax = (unsigned long long)t->proc->parent->vpid;
        t->regs_dirty = true;
    }
}

/* getppid: the kernel's, but for a warm copy's process, whose kernel
 * parent is init while its parent (or the subreaper that adopted it)
 * lives: its result is rewritten at the exit stop, so that the call is
 * recorded as the passed call of its cold run. */
enum sys_action sys_getppid(struct world *w, struct thread *t)
{
    if (t->proc->parent_emulated && t->proc->parent) t->exit_quiet = getppid_done;
    return SYS_PASS;
}

enum sys_action sys_set_tid_address(struct world *w, struct thread *t)
{
    t->ctid_addr = ARG0(t);
    return SYS_PASS;     /* the kernel must clear the word at exit itself */
}
