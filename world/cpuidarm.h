/* cpuid's fault armed in every program a machine runs (cpuid = trap, on a
 * host with CPUID faulting), so that cpuid answers the virtual CPU
 * (code/vcpu.h, world/rewrite.c answers the fault).
 *
 * ARCH_SET_CPUID is the calling thread's; clone and fork pass it on and
 * execve undoes it. So at each execve's exit stop, before the new
 * program's first instruction (ld.so runs cpuid at once), dsim makes the
 * program call arch_prctl(ARCH_SET_CPUID, 0) with every signal blocked:
 * at the clock stub's syscall instruction where the vDSO has one
 * (world/clockpage.h), else at one written over the entry point for the
 * call and put back after. A call that fails stops the run: cpuid would
 * tell the host's CPU. */
#ifndef DSIM_CPUIDARM_H
#define DSIM_CPUIDARM_H
#include "world/world.h"

/* At the exit stop of a thread that has just exec'd: true if the call is
 * under way (the thread runs to its stops, cpuid_arm_stop takes them). */
bool cpuid_arm_begin(struct world *w, struct thread *t);
/* A syscall or seccomp stop: true if it was the call's, taken here (the
 * thread goes on at the end, as from the execve's exit stop). */
bool cpuid_arm_stop(struct world *w, struct thread *t, bool seccomp);
#endif
