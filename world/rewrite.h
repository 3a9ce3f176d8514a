/* Rewriting a machine's code so that the instructions that read the world
 * without a system call trap instead (code/sites.h): rdrand and rdseed on
 * every host, rdtsc and rdtscp where the host does not make them fault
 * (tsc = rewrite). Each site becomes ud2; its SIGILL is answered here as
 * the instruction would have been, from the machine's clock or entropy.
 * The vDSO's entry points become system calls, which trap like any other.
 *
 * Code is rewritten when it is mapped: at exec (the program and its
 * interpreter), and at every mmap or mprotect that makes file-backed memory
 * executable. Those calls trap (the seccomp filter lets the others
 * through) and are handled inside the running thread's step: they are not
 * scheduling points and leave nothing in the trace's hash, so a seed gives
 * the same hash whether rdtsc faults or is rewritten. */
#ifndef DSIM_REWRITE_H
#define DSIM_REWRITE_H
#include "world/world.h"

/* One address space's rewritten sites; shared by CLONE_VM processes. */
struct code_sites;
struct code_sites *code_sites_new(void);
struct code_sites *code_sites_copy(const struct code_sites *from);   /* fork */
struct code_sites *code_sites_get(struct code_sites *cs);            /* CLONE_VM */
void code_sites_put(struct code_sites *cs);

/* The kinds of site this run rewrites (SITE_BIT mask, code/sites.h). */
unsigned rewrite_kinds(const struct world *w);

/* At the exec event stop: a fresh address space; rewrite the program, its
 * interpreter and the vDSO. */
void rewrite_exec(struct world *w, struct thread *t);

/* A seccomp stop of the running thread at mmap/mprotect/pkey_mprotect
 * (trapped only when they ask for PROT_EXEC): true if taken here, within
 * the step (the thread goes on to the call's exit stop). */
bool rewrite_map_entry(struct world *w, struct thread *t);
/* Its syscall-exit stop: true if it was one of those. */
bool rewrite_map_exit(struct world *w, struct thread *t);

/* A signal-delivery stop: true if it was a rewritten site's SIGILL, or
 * rdtsc's fault, and has been answered (the thread goes on). */
bool rewrite_trap(struct world *w, struct thread *t, int sig);
#endif
