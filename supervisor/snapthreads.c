/* A machine process's threads in a warm start's snapshot (snapthreads.h). */
#include "supervisor/snapthreads.h"
#include "world/tracer.h"
#include "world/world.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)     /* linux/signal.h's; glibc 2.36 lacks it */
#endif
#define XSTATE_MAX 16384        /* the largest XSAVE area, AMX's tiles included, is under 12 KiB */

/* One thread's state at its stop; 0, 1 if it did not come back to its stop
 * (the start-up cannot go on), or -1 if it cannot be read. */
static int read_one(pid_t pid, struct thread *t, struct snap_thread *st)
{
    memset(st, 0, sizeof *st);
    st->t = t;
    if (tracer_getregs(t->tid, &st->regs) != 0 || ptrace(PTRACE_GETSIGMASK, t->tid, sizeof st->sigmask, &st->sigmask) != 0)
        return -1;
    struct robust_list_head *head = NULL;
    size_t rlen = 0;
    if (syscall(SYS_get_robust_list, t->tid, &head, &rlen) == 0) st->robust = (uint64_t)(uintptr_t)head, st->robust_len = rlen;
    if ((st->xstate = malloc(XSTATE_MAX))) {
        struct iovec iov = { st->xstate, XSTATE_MAX };
        st->nxstate = ptrace(PTRACE_GETREGSET, t->tid, NT_X86_XSTATE, &iov) == 0 ? iov.iov_len : 0;
    }
    char path[80];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)t->tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, st->comm, sizeof st->comm - 1) : -1;
    if (fd >= 0) close(fd);
    if (n > 0 && st->comm[n - 1] == '\n') st->comm[n - 1] = 0;
    /* Its alternate signal stack: only the thread itself can say. */
    struct tracee tr = { .pid = t->tid, .home = st->regs, .at_seccomp = true };
    stack_t none = { .ss_flags = SS_DISABLE };
    long r = inject_buf(&tr, SYS_sigaltstack, 1, &none, sizeof none, &st->altstack, 0, 0, 0);
    if (back_home(&tr) != 0) return 1;
    return r == 0 && n > 0 ? 0 : -1;
}

int snap_threads_read(const struct world *w, const struct process *p, struct snap_threads *s, char *why, size_t len)
{
    memset(s, 0, sizeof *s);
    struct robust_list_head *head = NULL;
    size_t rlen = 0;
    if (syscall(SYS_get_robust_list, p->leader->tid, &head, &rlen) == 0)
        s->robust = (uint64_t)(uintptr_t)head, s->robust_len = rlen;
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *t = w->threads[i];
        if (t->proc != p || t == p->leader || t->state == TS_DEAD) continue;
        if (!(s->v = realloc(s->v, (size_t)(s->n + 1) * sizeof *s->v))) abort();
        int r = read_one(p->pid, t, &s->v[s->n++]);
        if (r != 0) {
            snprintf(why, len, r > 0 ? "thread %d did not come back to its stop" : "cannot read thread %d's state",
                     (int)t->vtid);
            return r > 0 ? -2 : -1;
        }
    }
    return 0;
}

/* The copy's first thread makes st's thread (at its tid, in the copy's
 * pid namespace); its host tid, stopped at its first stop, or -errno. */
static long clone_thread(struct tracee *copy, const struct snap_thread *st)
{
    return inject_clone3(copy, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM,
                         st->t->ctid_addr, st->t->vtid);
}

/* The made thread t takes st's state, and stands before its point's call. */
static long settle_thread(struct tracee *t, const struct snap_thread *st)
{
    struct iovec iov = { st->xstate, st->nxstate };
    if (st->nxstate && ptrace(PTRACE_SETREGSET, t->pid, NT_X86_XSTATE, &iov) != 0) return -errno;
    if (ptrace(PTRACE_SETSIGMASK, t->pid, sizeof st->sigmask, &st->sigmask) != 0) return -errno;
    long r = 0;
    if (st->robust) r = inject(t, SYS_set_robust_list, st->robust, st->robust_len, 0, NULL);
    if (!r && !(st->altstack.ss_flags & SS_DISABLE)) {
        stack_t ss = st->altstack;
        ss.ss_flags &= SS_AUTODISARM;   /* on it at the point or not, the kernel tells from the stack pointer */
        r = inject_buf(t, SYS_sigaltstack, 0, &ss, sizeof ss, NULL, 0, 0, 0);
    }
    /* Its name: only a thread of the process may write another's comm. */
    if (!r) r = inject_buf(t, SYS_prctl, 1, st->comm, sizeof st->comm, NULL, PR_SET_NAME, 0, 0);
    if (r) return r;
    struct user_regs_struct regs = st->regs;
    regs.rip -= 2, regs.rax = st->regs.orig_rax, regs.orig_rax = (unsigned long long)-1;
    return tracer_setregs(t->pid, &regs) == 0 ? 0 : -errno;
}

long snap_threads_make(struct tracee *copy, struct snap_threads *s)
{
    long r = s->robust ? inject(copy, SYS_set_robust_list, s->robust, s->robust_len, 0, NULL) : 0;
    for (int i = 0; i < s->n; i++) s->v[i].copy = 0;
    for (int i = 0; i < s->n && !r; i++) {
        struct snap_thread *st = &s->v[i];
        long c = -EEXIST;
        /* Its tid is free once init has reaped the last seed's copy. */
        for (int tries = 0; c == -EEXIST && tries < 2000; tries++) {
            c = clone_thread(copy, st);
            if (c == -EEXIST) nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
        }
        if (c < 0) return c;
        st->copy = (pid_t)c;
        struct tracee t = { .pid = (pid_t)c, .home = st->regs, .at_seccomp = false };
        r = settle_thread(&t, st);
    }
    return r;
}

void snap_threads_detach(struct snap_threads *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i].copy > 0) ptrace(PTRACE_DETACH, s->v[i].copy, 0, 0);
}

int snap_threads_take(struct snap_threads *s)
{
    int status;
    for (int i = 0; i < s->n; i++) {
        pid_t tid = s->v[i].copy;
        if (ptrace(PTRACE_SEIZE, tid, 0, TRACE_OPTIONS) != 0 || wait_tracee(tid, &status) != tid || !WIFSTOPPED(status))
            return -1;
    }
    return 0;
}

/* After the group stop's end (SIGCONT): each thread to its point's stop. */
int snap_threads_arrive(struct snap_threads *s)
{
    for (int i = 0; i < s->n; i++) {
        struct snap_thread *st = &s->v[i];
        bool there = false;
        for (int k = 0; k < 8 && !there; k++) {
            int status;
            if (tracer_cont(st->copy, 0) != 0 || wait_tracee(st->copy, &status) != st->copy || !WIFSTOPPED(status))
                return -1;
            if (event_of(status) != PTRACE_EVENT_SECCOMP) continue;
            struct user_regs_struct r;
            if (tracer_getregs(st->copy, &r) != 0 || memcmp(&r, &st->regs, sizeof r)) return -1;
            there = true;
        }
        if (!there) return -1;
        st->t->tid = st->copy;
    }
    return 0;
}

void snap_threads_free(struct snap_threads *s)
{
    for (int i = 0; i < s->n; i++) free(s->v[i].xstate);
    free(s->v);
    memset(s, 0, sizeof *s);
}
