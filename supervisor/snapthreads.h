/* A machine process's threads in a warm start's snapshot (snapshot.c). A
 * copy is a fork of the process's first thread, which brings that thread's
 * registers, FPU state, signal mask and alternate stack, but not its
 * robust futex list, nor any other thread. Each other thread's state at
 * the point is read from the start-up, and every seed's copy makes the
 * thread again: a clone3 its first thread is made to call (CLONE_THREAD,
 * at the thread's tid, clearing its tid address at exit as glibc asked),
 * then the thread's registers (TLS base among them), FPU state, signal
 * mask, alternate signal stack, robust list and name. */
#ifndef DSIM_SNAPTHREADS_H
#define DSIM_SNAPTHREADS_H
#include "supervisor/inject.h"
#include <signal.h>

struct world;
struct process;
struct thread;

struct snap_thread {
    struct thread *t;           /* the world's: its host tid becomes the copy's */
    struct user_regs_struct regs;
    uint64_t sigmask;
    uint64_t robust, robust_len;
    stack_t altstack;
    void *xstate;               /* PTRACE_GETREGSET NT_X86_XSTATE */
    size_t nxstate;
    char comm[16];
    pid_t copy;                 /* in the seed's copy: its host tid */
};

struct snap_threads {
    struct snap_thread *v;
    int n;
    uint64_t robust, robust_len;    /* the first thread's robust list */
};

/* Reads p's threads but its first, each at its stop (an injected
 * sigaltstack asks for its alternate stack; it is back at its stop after),
 * and the first thread's robust list. 0, or -1 with why. */
int snap_threads_read(const struct world *w, const struct process *p, struct snap_threads *s, char *why, size_t len);
/* In a copy (its first thread at the exit stop of an injected call): the
 * first thread's robust list, and every other thread made again and left
 * at its point's call, traced here. 0 or -errno. */
long snap_threads_make(struct tracee *copy, struct snap_threads *s);
/* Lets the made threads go once the copy's group stop is pending. */
void snap_threads_detach(struct snap_threads *s);
/* In the seed's supervisor: seizes each made thread of the group-stopped
 * copy (take, before the SIGCONT that ends the stop), then takes each to
 * the seccomp stop of its point, its registers checked, and gives the
 * world's thread the copy's tid (arrive). 0 or -1. */
int snap_threads_take(struct snap_threads *s);
int snap_threads_arrive(struct snap_threads *s);
void snap_threads_free(struct snap_threads *s);
#endif
