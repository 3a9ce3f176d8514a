/* System calls made by a stopped tracee (inject.h). */
#include "supervisor/inject.h"
#include "world/tracer.h"
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

uint64_t scratch_addr(const struct tracee *t) { return (t->home.rsp - 128 - SCRATCH_LEN) & ~15ULL; }

pid_t wait_tracee(pid_t pid, int *status)
{
    pid_t r;
    while ((r = waitpid(pid, status, __WALL)) < 0 && errno == EINTR) {}
    return r;
}

int event_of(int status) { return WIFSTOPPED(status) ? status >> 16 : -1; }

long inject6(struct tracee *t, long nr, const uint64_t a[6], pid_t *child)
{
    struct user_regs_struct r = t->home;
    int status;
    if (!t->at_seccomp) {
        /* Back to the syscall instruction, as a call the filter traps
         * (getppid), to stand at its seccomp stop again. */
        r.rip = t->home.rip - 2, r.rax = SYS_getppid, r.orig_rax = (unsigned long long)-1;
        if (tracer_setregs(t->pid, &r) != 0 || tracer_cont(t->pid, 0) != 0) return -ENOTRECOVERABLE;
        if (wait_tracee(t->pid, &status) != t->pid || event_of(status) != PTRACE_EVENT_SECCOMP)
            return -ENOTRECOVERABLE;
        r = t->home;
    }
    /* At the seccomp stop the pending call becomes nr: the kernel checks it
     * against the filter again (a second trace means allow), so a call the
     * filter lets through (sigaltstack) is made too. */
    r.rdi = a[0], r.rsi = a[1], r.rdx = a[2], r.r10 = a[3], r.r8 = a[4], r.r9 = a[5];
    r.orig_rax = (unsigned long long)nr;
    if (tracer_setregs(t->pid, &r) != 0) return -ENOTRECOVERABLE;
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

long inject4(struct tracee *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, pid_t *child)
{
    return inject6(t, nr, (const uint64_t[6]){ a0, a1, a2, a3, 0, 0 }, child);
}

long inject(struct tracee *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2, pid_t *child)
{
    return inject4(t, nr, a0, a1, a2, 0, child);
}

int back_home(struct tracee *t)
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

long inject_clone3(struct tracee *t, uint64_t flags, uint64_t child_tid, pid_t set_tid)
{
    uint64_t base = scratch_addr(t);
    char saved[SCRATCH_LEN];
    if (mem_read(t->pid, base, saved, sizeof saved) != 0) return -EFAULT;
    struct clone_args ca;
    memset(&ca, 0, sizeof ca);
    ca.flags = flags;
    if (child_tid) ca.flags |= CLONE_CHILD_CLEARTID, ca.child_tid = child_tid;
    ca.set_tid = base + 128;
    ca.set_tid_size = 1;
    pid_t child = 0;
    long r = -EFAULT;
    if (mem_write(t->pid, base + 128, &set_tid, sizeof set_tid) == 0 && mem_write(t->pid, base, &ca, sizeof ca) == 0)
        r = inject(t, SYS_clone3, base, sizeof ca, 0, &child);
    if (mem_write(t->pid, base, saved, sizeof saved) != 0 && r >= 0) r = -EFAULT;
    bool fork = !(flags & CLONE_VM);
    int status;
    if (r >= 0 && (child <= 0 || wait_tracee(child, &status) != child || event_of(status) != PTRACE_EVENT_STOP ||
                   (fork && mem_write(child, base, saved, sizeof saved) != 0)))
        r = -ENOTRECOVERABLE;
    if (r < 0 && child > 0 && fork) kill(child, SIGKILL);
    return r < 0 ? r : child;
}

long inject_path(struct tracee *t, long nr, const char *path)
{
    return inject_buf(t, nr, 0, path, strlen(path) + 1, NULL, 0, 0, 0);
}


long inject_buf(struct tracee *t, long nr, int at, const void *in, size_t len, void *out, uint64_t a0, uint64_t a1,
                uint64_t a2)
{
    uint64_t base = scratch_addr(t), a[3] = { a0, a1, a2 };
    char saved[SCRATCH_LEN];
    if (len > SCRATCH_LEN || at < 0 || at > 2 || mem_read(t->pid, base, saved, sizeof saved) != 0) return -EFAULT;
    a[at] = base;
    long r = mem_write(t->pid, base, in, len) == 0 ? inject(t, nr, a[0], a[1], a[2], NULL) : -EFAULT;
    if (r >= 0 && out && mem_read(t->pid, base, out, len) != 0) r = -EFAULT;
    if (mem_write(t->pid, base, saved, sizeof saved) != 0 && r >= 0) r = -EFAULT;
    return r;
}
