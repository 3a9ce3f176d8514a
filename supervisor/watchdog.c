/* The spin watchdog. Without a PMU a thread is preempted only at syscalls,
 * so one spinning in user space on a flag that only a stopped thread could
 * set never stops, and settle() would wait for it forever. A real-time tick
 * interrupts settle()'s waitpid; past spin_limit of the running thread's
 * own time without a stop, the run fails with its stack.
 *
 * Its own time, not the wall clock's: on a busy host a thread that computes
 * for a second may wait many more for a CPU, and a seed's outcome must not
 * depend on the host's load. The kernel counts a task's time on a run
 * queue (/proc/TID/schedstat, second field): that time is left out, so
 * what counts is time on a CPU or asleep in the kernel (a thread blocked
 * there, as a read MSG_WAITALL may leave one, holds the baton too). */
#include "supervisor/step.h"
#include "supervisor/stack.h"
#include "supervisor/hostcaps.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS 250

/* The stall being measured: from the first tick that found tid running. */
static struct { pid_t tid; uint64_t since_ns, queued0_ns; } stall;

static void on_tick(int sig) { (void)sig; }

void watchdog_arm(bool on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tick;     /* no SA_RESTART: waitpid returns EINTR */
    if (on) sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, TICK_MS * 1000 }, { 0, TICK_MS * 1000 } };
    if (!on) memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
    stall.tid = 0;
}

void watchdog_reset(void) { stall.tid = 0; }

static uint64_t monotonic_ns(void) { return host_clock_ns(CLOCK_MONOTONIC); }

/* How long the thread has waited on a run queue for a CPU, in all (0 if
 * the kernel does not say: then the wall clock alone counts). */
static uint64_t queued_ns(const struct thread *t)
{
    char path[64], text[128] = "";
    snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)t->proc->pid, (int)t->tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0) close(fd);
    uint64_t run = 0, queued = 0;
    if (n <= 0 || sscanf(text, "%" SCNu64 " %" SCNu64, &run, &queued) != 2) return 0;
    return queued;
}

static void spin_detected(struct world *w, struct thread *t, uint64_t own_ns, uint64_t queued)
{
    int status;
    syscall(SYS_tgkill, t->proc->pid, t->tid, SIGSTOP);
    while (waitpid(t->tid, &status, __WALL) < 0 && errno == EINTR) {}
    char stack[4096] = "", busy[96] = "";
    if (WIFSTOPPED(status)) stack_format(t->tid, stack, sizeof stack);
    if (queued >= 100000000ULL)
        snprintf(busy, sizeof busy, "; %.1fs more waiting for a CPU on a busy host", queued / 1e9);
    world_fail(w, OUT_SPIN, "machine %s thread %d ran %.1fs without a syscall (on a CPU or asleep in the kernel%s) "
               "(spinning on memory another thread would change? dsim preempts only at syscalls)\n%s",
               t->proc->m->name, t->vtid, own_ns / 1e9, busy, stack);
    t->state = TS_DYING;
}

bool watchdog_check(struct world *w, struct thread *t)
{
    if (t->state != TS_RUNNING) return false;
    uint64_t now = monotonic_ns(), queued = queued_ns(t);
    if (stall.tid != t->tid) {
        stall.tid = t->tid;
        stall.since_ns = now;
        stall.queued0_ns = queued;
        return false;
    }
    uint64_t elapsed = now - stall.since_ns, waited = queued - stall.queued0_ns;
    uint64_t own = elapsed > waited ? elapsed - waited : 0;
    if (own < w->conf->spin_limit_ns) return false;
    spin_detected(w, t, own, waited);
    return true;
}
