/* The world's registry: threads, processes, and a run's verdict. */
#include "world/world.h"
#include "base/xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void world_fail(struct world *w, enum outcome o, const char *fmt, ...)
{
    if (w->outcome != OUT_RUNNING) return;
    w->outcome = o;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->reason, sizeof w->reason, fmt, ap);
    va_end(ap);
}

/* ---- registry ---- */

struct thread *world_thread_by_tid(struct world *w, pid_t tid)
{
    /* Most notices are the running thread's: no walk for them. A live tid
     * names one thread (a tid is reused only once it is reaped). */
    if (w->running && w->running->tid == tid && w->running->state != TS_DEAD) return w->running;
    for (size_t i = w->nthreads; i-- > 0;)
        if (w->threads[i]->tid == tid && w->threads[i]->state != TS_DEAD) return w->threads[i];
    return NULL;
}

struct thread *world_thread_by_vtid(struct world *w, struct machine *m, pid_t vtid)
{
    for (size_t i = w->nthreads; i-- > 0;) {
        struct thread *t = w->threads[i];
        if (t->vtid == vtid && t->proc->m == m && t->state != TS_DEAD) return t;
    }
    return NULL;
}

struct process *world_proc_by_vpid(struct machine *m, struct world *w, pid_t vpid)
{
    for (size_t i = w->nprocs; i-- > 0;)
        if (w->procs[i]->vpid == vpid && w->procs[i]->m == m && !w->procs[i]->reaped)
            return w->procs[i];
    return NULL;
}

struct thread *world_add_thread(struct world *w, struct process *p, pid_t tid, pid_t vtid)
{
    struct thread *t = calloc(1, sizeof *t);
    t->id = ++w->threads_made;
    t->start_ns = machine_monotonic(w, p->m);
    t->tid = tid;
    t->vtid = vtid;
    t->proc = p;
    t->state = TS_NEW;
    t->deadline = UINT64_MAX;
    t->copy_fd = -1;
    t->ready_copy = -1;
    sched_state_init(&t->sched, w->conf->cpus);
    if (!p->leader) p->leader = t;
    p->nlive++;
    if (w->nthreads == w->capthreads) {
        GROW(w->threads, w->nthreads, w->capthreads);
        w->runnable = xrealloc(w->runnable, w->capthreads * sizeof *w->runnable);
    }
    w->threads[w->nthreads++] = t;
    return t;
}

/* Dead threads and reaped processes leave the arrays every round walks (a program that starts
 * thousands of processes would slow each step down); the live keep their
 * order, so the scheduler's draws are unchanged. Their structs stay until
 * the run ends: a process's leader or a vfork parent may be one. */
void world_compact_threads(struct world *w)
{
    size_t k = 0;
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *t = w->threads[i];
        if (t->state != TS_DEAD || t == w->running || t == w->held_at_exit) {
            w->threads[k++] = t;
            continue;
        }
        GROW(w->dead, w->ndead, w->capdead);
        w->dead[w->ndead++] = t;
        t->proc->dead_steps += t->steps;      /* its process's CPU time keeps them */
        t->proc->dead_nvcsw += t->nvcsw;
        t->proc->dead_nivcsw += t->nivcsw;
    }
    w->nthreads = k;
    /* Processes their parents have reaped, likewise (kill_group still
     * finds a reaped group leader among them). */
    k = 0;
    for (size_t i = 0; i < w->nprocs; i++) {
        struct process *p = w->procs[i];
        if (!(p->exited && p->reaped && p->nlive == 0)) {
            w->procs[k++] = p;
            continue;
        }
        GROW(w->deadprocs, w->ndeadprocs, w->capdeadprocs);
        w->deadprocs[w->ndeadprocs++] = p;
    }
    w->nprocs = k;
}

uint64_t process_steps(const struct world *w, const struct process *p)
{
    uint64_t steps = p->dead_steps;
    for (size_t i = 0; i < w->nthreads; i++)
        if (w->threads[i]->proc == p) steps += w->threads[i]->steps;
    return steps;
}

void process_switches(const struct world *w, const struct process *p, uint64_t *nvcsw, uint64_t *nivcsw)
{
    *nvcsw = p->dead_nvcsw;
    *nivcsw = p->dead_nivcsw;
    for (size_t i = 0; i < w->nthreads; i++)
        if (w->threads[i]->proc == p) {
            *nvcsw += w->threads[i]->nvcsw;
            *nivcsw += w->threads[i]->nivcsw;
        }
}

struct process *world_add_process(struct world *w, struct machine *m, pid_t pid, pid_t vpid)
{
    struct process *p = calloc(1, sizeof *p);
    p->start_ns = machine_monotonic(w, m);
    p->pid = pid;
    p->vpid = vpid;
    p->m = m;
    p->pidfd = -1;
    p->mm = ++w->next_mm;
    GROW(w->procs, w->nprocs, w->capprocs);
    w->procs[w->nprocs++] = p;
    return p;
}

bool world_take_early_stop(struct world *w, pid_t pid)
{
    for (int i = 0; i < w->nearly; i++)
        if (w->early_stops[i] == pid) { w->early_stops[i] = w->early_stops[--w->nearly]; return true; }
    return false;
}

const char *const machine_tmp_dirs[MACHINE_TMP_DIRS] = { "/tmp", "/var/tmp" };

/* Gives a file dsim made for the machines their boot time, not the host's
 * clock at the run's start (its ctime, which cannot be set, is shown as
 * its mtime: syscalls/stat.c). */
void machine_file_times(const struct world *w, int dirfd, const char *path)
{
    struct timespec boot[2] = { { (time_t)world_boot_s(w), 0 }, { (time_t)world_boot_s(w), 0 } };
    utimensat(dirfd, path, boot, 0);
}

void random_fill(struct world *w, struct thread *t, void *buf, size_t len)
{
    prng_fill(&t->proc->m->entropy, buf, len);
    trace_hash_bytes(w->trace, buf, len);   /* what the machine saw is part of the run */
}

/* Value records: a tag byte (call records, supervisor/callrec.c, are 1),
 * the value in 8 bytes little-endian, the name. */
enum { REC_VALUE = 2 };

static void value_format(const void *rec, size_t len, char *buf, size_t cap)
{
    const unsigned char *p = rec;
    if (!cap) return;
    buf[0] = 0;
    if (len < 1 + 8 || *p != REC_VALUE) return;
    uint64_t value = 0;
    for (int i = 0; i < 8; i++) value |= (uint64_t)p[1 + i] << (8 * i);
    snprintf(buf, cap, "%.*s = %llu", (int)(len - 9), (const char *)p + 9, (unsigned long long)value);
}

void trace_value(struct world *w, struct thread *t, const char *name, uint64_t value)
{
    unsigned char rec[1 + 8 + 32];
    size_t n = strnlen(name, 32);
    rec[0] = REC_VALUE;
    for (int i = 0; i < 8; i++) rec[1 + i] = (unsigned char)(value >> (8 * i));
    memcpy(rec + 9, name, n);
    trace_record(w->trace, w->now, t->proc->m->name, t->vtid, rec, 9 + n, value_format);
}
