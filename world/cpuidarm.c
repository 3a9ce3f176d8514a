#include "world/cpuidarm.h"
#include "world/clockpage.h"
#include "world/tracer.h"
#include <asm/prctl.h>
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

/* The stops of the call, in order: its entry, its seccomp stop (the filter
 * traps ARCH_SET_CPUID: syscalls/info.c), its exit. */
enum { ARM_NONE, ARM_ENTRY, ARM_MADE };

static void arm_failed(struct world *w, struct thread *t, const char *what, int err)
{
    world_fail(w, OUT_FENCE, "cpuid's fault could not be armed after an exec in machine %s, thread %d (%s: %s): "
               "its cpuid would tell the host's CPU; use cpuid = rewrite", t->proc->m->name, t->vtid, what,
               strerror(err));
}

/* Where the call's syscall instruction is: the clock stub's, or the entry
 * point's first two bytes, made one. */
static uint64_t syscall_at(const struct thread *t)
{
    const struct process *p = t->proc;
    if (p->clock_stub) return p->clock_stub + (uint64_t)(dsim_clock_stub_syscall - dsim_clock_stub);
    return t->exec_saved.rip;
}

static bool own_syscall(const struct thread *t) { return !t->proc->clock_stub; }

bool cpuid_arm_begin(struct world *w, struct thread *t)
{
    struct process *p = t->proc;
    if (!p->cpuid_arm_due) return false;
    p->cpuid_arm_due = false;
    uint64_t all = ~0ULL;
    static const uint8_t syscall_insn[2] = { 0x0f, 0x05 };
    if (tracer_getregs(t->tid, &t->exec_saved) ||
        ptrace(PTRACE_GETSIGMASK, t->tid, sizeof t->exec_saved_mask, &t->exec_saved_mask)) {
        arm_failed(w, t, "reading its registers", errno);
        return false;
    }
    if (own_syscall(t) && (code_peek(t->tid, t->exec_saved.rip, t->cpuid_arm_orig, 2) ||
                           code_poke(t->tid, t->exec_saved.rip, syscall_insn, 2))) {
        arm_failed(w, t, "writing a syscall instruction at its entry point", errno);
        return false;
    }
    struct user_regs_struct r = t->exec_saved;
    r.rip = syscall_at(t);
    r.rax = SYS_arch_prctl;
    r.orig_rax = (unsigned long long)-1;
    r.rdi = ARCH_SET_CPUID, r.rsi = 0;
    if (ptrace(PTRACE_SETSIGMASK, t->tid, sizeof all, &all) || tracer_setregs(t->tid, &r) ||
        tracer_syscall(t->tid, 0)) {
        arm_failed(w, t, "starting the call", errno);
        return false;
    }
    t->cpuid_arming = ARM_ENTRY;
    return true;
}

bool cpuid_arm_stop(struct world *w, struct thread *t, bool seccomp)
{
    if (t->cpuid_arming == ARM_NONE) return false;
    if (seccomp || t->cpuid_arming == ARM_ENTRY) {
        t->cpuid_arming = ARM_MADE;
        tracer_syscall(t->tid, 0);
        return true;
    }
    t->cpuid_arming = ARM_NONE;
    struct user_regs_struct r;
    long result = tracer_getregs(t->tid, &r) ? -EIO : (long)r.rax;
    if (own_syscall(t) && code_poke(t->tid, t->exec_saved.rip, t->cpuid_arm_orig, 2) && !result) result = -EIO;
    tracer_setregs(t->tid, &t->exec_saved);
    ptrace(PTRACE_SETSIGMASK, t->tid, sizeof t->exec_saved_mask, &t->exec_saved_mask);
    if (result) {
        arm_failed(w, t, "arch_prctl(ARCH_SET_CPUID, 0)", (int)-result);
        return true;
    }
    tracer_cont(t->tid, 0);
    return true;
}
