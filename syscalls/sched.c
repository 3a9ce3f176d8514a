/* The machine's own scheduler: policies, priorities, nice values, I/O
 * priorities and affinities are kept per thread by dsim (the model is
 * base/schedmodel.h) and read back with Linux's semantics; none of it
 * reaches the host, where dsim decides who runs. Ids are the machine's:
 * threads by their tid in its PID namespace, pid 1 its init. Every call
 * here is emulated. */
#include "syscalls/sys.h"
#include "base/schedmodel.h"
#include "world/tracer.h"
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define CAP_SYS_NICE_BIT 23
#define PAGE 4096
#define RR_TIMESLICE_NS 100000000LL     /* sched_rr_timeslice_ms = 100 */

/* ---- the threads a call names ---- */

/* init (pid 1) is not one of dsim's threads: its state lives with the
 * machine, fresh at every start of the machine. */
static struct sched_state *init_state(struct world *w, struct machine *m)
{
    if (m->init_sched_pid != m->init_pid) {
        sched_state_init(&m->init_sched, w->conf->cpus);
        m->init_sched_pid = m->init_pid;
    }
    return &m->init_sched;
}

/* One schedulable entity of the machine: a thread, or its init. */
struct target {
    struct sched_state *st;
    pid_t host_tid;
};

/* The thread `pid` names in the caller's machine (0: the caller), a zombie
 * process's leader included. False if there is none (ESRCH). */
static bool find_target(struct world *w, struct thread *t, pid_t pid, struct target *out)
{
    struct machine *m = t->proc->m;
    struct thread *o = pid == 0 ? t : world_thread_by_vtid(w, m, pid);
    if (!o) {
        struct process *p = world_proc_by_vpid(m, w, pid);
        if (p && p->exited && p->leader) o = p->leader;
    }
    if (o) {
        *out = (struct target){ &o->sched, o->tid };
        return true;
    }
    if (pid == 1 && m->init_pid > 0 && !m->init_reaped) {
        *out = (struct target){ init_state(w, m), m->init_pid };
        return true;
    }
    return false;
}

/* Every live thread of the machine, and its init, in creation order
 * (malloc'd; *n of them). */
static struct target *all_targets(struct world *w, struct machine *m, size_t *n)
{
    struct target *out = malloc((w->nthreads + 1) * sizeof *out);
    if (!out) abort();
    *n = 0;
    if (m->init_pid > 0 && !m->init_reaped) out[(*n)++] = (struct target){ init_state(w, m), m->init_pid };
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *o = w->threads[i];
        if (o->proc->m == m && o->state != TS_DEAD) out[(*n)++] = (struct target){ &o->sched, o->tid };
    }
    return out;
}

/* ---- credentials, as permission checks need them ---- */

struct creds { long uid, euid; bool cap_sys_nice; };

static void read_creds(pid_t tid, struct creds *c)
{
    char path[64], line[256];
    *c = (struct creds){ -1, -1, false };
    snprintf(path, sizeof path, "/proc/%d/status", tid);
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f)) {
        unsigned long long caps;
        if (sscanf(line, "Uid: %ld %ld", &c->uid, &c->euid) == 2) continue;
        if (sscanf(line, "CapEff: %llx", &caps) == 1) c->cap_sys_nice = caps >> CAP_SYS_NICE_BIT & 1;
    }
    if (f) fclose(f);
}

static uint64_t soft_limit(pid_t tid, int resource)
{
    struct rlimit r;
    return prlimit(tid, resource, NULL, &r) == 0 ? r.rlim_cur : 0;
}

/* What caller may do to target. */
static void perm_for(const struct creds *caller, pid_t target_tid, struct sched_perm *p)
{
    struct creds tc;
    read_creds(target_tid, &tc);
    p->cap_sys_nice = caller->cap_sys_nice;
    p->same_owner = caller->euid == tc.euid || caller->euid == tc.uid;
    p->prio_owner = tc.uid == caller->euid || tc.euid == caller->euid;
    p->io_owner = tc.uid == caller->euid || tc.uid == caller->uid;
    p->rlim_nice = soft_limit(target_tid, RLIMIT_NICE);
    p->rlim_rtprio = soft_limit(target_tid, RLIMIT_RTPRIO);
}

/* The last field of a /proc/PID/status line: the machine's own id. */
static long status_last(pid_t tid, const char *key)
{
    char path[64], line[256];
    long v = -1;
    snprintf(path, sizeof path, "/proc/%d/status", tid);
    FILE *f = fopen(path, "re");
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl)) {
            char *last = strrchr(line, '\t');
            v = last ? atol(last + 1) : -1;
            break;
        }
    if (f) fclose(f);
    return v;
}

/* A uid of the machine as dsim sees it (through the machine's user
 * namespace, if it has one). */
static long uid_outside(pid_t tid, long uid)
{
    char path[64];
    long in, out, count;
    snprintf(path, sizeof path, "/proc/%d/uid_map", tid);
    FILE *f = fopen(path, "re");
    long r = -1;
    while (f && fscanf(f, "%ld %ld %ld", &in, &out, &count) == 3)
        if (uid >= in && uid - in < count) { r = out + (uid - in); break; }
    if (f) fclose(f);
    return r;
}

/* The members of a PRIO_PGRP/PRIO_USER (IOPRIO_WHO_PGRP/USER) set, in
 * place of all (*n in and out). */
enum group_kind { GROUP_PGRP, GROUP_USER };

static void keep_group(struct thread *t, enum group_kind kind, long who, struct target *all, size_t *n)
{
    long want;
    if (kind == GROUP_PGRP) {
        want = who ? who : status_last(t->tid, "NSpgid:");
    } else {
        struct creds c;
        read_creds(t->tid, &c);
        want = who ? uid_outside(t->tid, who) : c.uid;
    }
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        long v;
        if (kind == GROUP_PGRP) {
            v = status_last(all[i].host_tid, "NSpgid:");
        } else {
            struct creds c;
            read_creds(all[i].host_tid, &c);
            v = c.uid;
        }
        if (v >= 0 && v == want) all[k++] = all[i];
    }
    *n = k;
}

/* The threads a PRIO_ pair names (malloc'd); which is already valid. */
static struct target *who_targets(struct world *w, struct thread *t, int which, long who, size_t *n)
{
    if (which == PRIO_PROCESS) {
        struct target *one = malloc(sizeof *one);
        if (!one) abort();
        *n = find_target(w, t, (pid_t)who, one) ? 1 : 0;
        return one;
    }
    struct target *all = all_targets(w, t->proc->m, n);
    keep_group(t, which == PRIO_PGRP ? GROUP_PGRP : GROUP_USER, who, all, n);
    return all;
}

static struct sched_domain domain_for(struct world *w, struct thread *t, const struct sched_state *except)
{
    size_t n;
    struct target *all = all_targets(w, t->proc->m, &n);
    struct sched_domain d = { w->conf->cpus, 0 };
    for (size_t i = 0; i < n; i++)
        if (all[i].st != except) d.dl_bw_others += sched_dl_bw(all[i].st);
    free(all);
    return d;
}

/* ---- policies and priorities ---- */

static long apply_attr(struct world *w, struct thread *t, struct target *tg, const struct sched_attr_req *a, bool attr)
{
    struct creds me;
    struct sched_perm perm;
    read_creds(t->tid, &me);
    perm_for(&me, tg->host_tid, &perm);
    struct sched_domain d = domain_for(w, t, tg->st);
    return attr ? sched_set_attr(tg->st, a, &perm, &d) : sched_set(tg->st, a, &perm, &d);
}

static long set_scheduler(struct world *w, struct thread *t, int pid, int policy, uint64_t param)
{
    int prio;
    struct target tg;
    if (!param || pid < 0) return -EINVAL;
    if (mem_read(t->tid, param, &prio, sizeof prio)) return -EFAULT;
    if (!find_target(w, t, pid, &tg)) return -ESRCH;
    struct sched_attr_req a = sched_attr_of_param(tg.st, policy, prio);
    return apply_attr(w, t, &tg, &a, false);
}

enum sys_action sys_sched_setscheduler(struct world *w, struct thread *t)
{
    int policy = (int)ARG1(t);
    return emulate(t, policy < 0 ? -EINVAL : set_scheduler(w, t, (int)ARG0(t), policy, ARG2(t)));
}

enum sys_action sys_sched_setparam(struct world *w, struct thread *t)
{
    return emulate(t, set_scheduler(w, t, (int)ARG0(t), SCHED_SETPARAM_POLICY, ARG1(t)));
}

enum sys_action sys_sched_getscheduler(struct world *w, struct thread *t)
{
    struct target tg;
    if ((int)ARG0(t) < 0) return emulate(t, -EINVAL);
    if (!find_target(w, t, (int)ARG0(t), &tg)) return emulate(t, -ESRCH);
    return emulate(t, sched_get_policy(tg.st));
}

enum sys_action sys_sched_getparam(struct world *w, struct thread *t)
{
    struct target tg;
    if (!ARG1(t) || (int)ARG0(t) < 0) return emulate(t, -EINVAL);
    if (!find_target(w, t, (int)ARG0(t), &tg)) return emulate(t, -ESRCH);
    int prio = sched_get_priority(tg.st);
    return emulate(t, mem_write(t->tid, ARG1(t), &prio, sizeof prio) ? -EFAULT : 0);
}

/* sched_copy_attr: a short structure is padded with zeros, a longer one
 * must end in zeros; a size Linux cannot take is E2BIG with its own size
 * written back. */
static long copy_attr(struct thread *t, uint64_t addr, struct sched_attr_req *a)
{
    uint32_t size;
    memset(a, 0, sizeof *a);
    if (mem_read(t->tid, addr, &size, sizeof size)) return -EFAULT;
    if (!size) size = SCHED_ATTR_SIZE_VER0;
    if (size < SCHED_ATTR_SIZE_VER0 || size > PAGE) goto too_big;
    if (mem_read(t->tid, addr, a, size < sizeof *a ? size : sizeof *a)) return -EFAULT;
    if (size > sizeof *a) {
        unsigned char rest[PAGE];
        if (mem_read(t->tid, addr + sizeof *a, rest, size - sizeof *a)) return -EFAULT;
        for (size_t i = 0; i < size - sizeof *a; i++)
            if (rest[i]) goto too_big;
    }
    if ((a->flags & SCHED_F_UTIL_CLAMP) && size < SCHED_ATTR_SIZE_VER1) return -EINVAL;
    a->nice = a->nice < -20 ? -20 : a->nice > 19 ? 19 : a->nice;
    return 0;
too_big:
    size = sizeof *a;
    mem_write(t->tid, addr, &size, sizeof size);
    return -E2BIG;
}

enum sys_action sys_sched_setattr(struct world *w, struct thread *t)
{
    int pid = (int)ARG0(t);
    struct sched_attr_req a;
    struct target tg;
    if (!ARG1(t) || pid < 0 || (unsigned)ARG2(t)) return emulate(t, -EINVAL);
    long r = copy_attr(t, ARG1(t), &a);
    if (r) return emulate(t, r);
    if ((int)a.policy < 0) return emulate(t, -EINVAL);
    if (!find_target(w, t, pid, &tg)) return emulate(t, -ESRCH);
    return emulate(t, apply_attr(w, t, &tg, &a, true));
}

enum sys_action sys_sched_getattr(struct world *w, struct thread *t)
{
    int pid = (int)ARG0(t);
    unsigned usize = (unsigned)ARG2(t);
    struct target tg;
    if (!ARG1(t) || pid < 0 || usize > PAGE || usize < SCHED_ATTR_SIZE_VER0 || (unsigned)ARG3(t))
        return emulate(t, -EINVAL);
    if (!find_target(w, t, pid, &tg)) return emulate(t, -ESRCH);
    struct sched_attr_req a;
    sched_get(tg.st, &a);
    a.size = usize < sizeof a ? usize : (uint32_t)sizeof a;
    return emulate(t, mem_write(t->tid, ARG1(t), &a, a.size) ? -EFAULT : 0);
}

enum sys_action sys_sched_get_priority_max(struct world *w, struct thread *t)
{
    switch ((int)ARG0(t)) {
    case SCHED_FIFO: case SCHED_RR: return emulate(t, 99);
    case SCHED_OTHER: case SCHED_BATCH: case SCHED_IDLE: case 6: case 7: return emulate(t, 0);
    default: return emulate(t, -EINVAL);
    }
}

enum sys_action sys_sched_get_priority_min(struct world *w, struct thread *t)
{
    switch ((int)ARG0(t)) {
    case SCHED_FIFO: case SCHED_RR: return emulate(t, 1);
    case SCHED_OTHER: case SCHED_BATCH: case SCHED_IDLE: case 6: case 7: return emulate(t, 0);
    default: return emulate(t, -EINVAL);
    }
}

/* SCHED_RR's quantum is sched_rr_timeslice_ms; other policies report 0. */
enum sys_action sys_sched_rr_get_interval(struct world *w, struct thread *t)
{
    struct target tg;
    if ((int)ARG0(t) < 0) return emulate(t, -EINVAL);
    if (!find_target(w, t, (int)ARG0(t), &tg)) return emulate(t, -ESRCH);
    int64_t ns = tg.st->policy == SCHED_RR ? RR_TIMESLICE_NS : 0;
    struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
    return emulate(t, mem_write(t->tid, ARG1(t), &ts, sizeof ts) ? -EFAULT : 0);
}

/* ---- nice ---- */

enum sys_action sys_getpriority(struct world *w, struct thread *t)
{
    int which = (int)ARG0(t);
    if (which < PRIO_PROCESS || which > PRIO_USER) return emulate(t, -EINVAL);
    size_t n;
    struct target *tg = who_targets(w, t, which, (int)ARG1(t), &n);
    long r = -ESRCH;
    for (size_t i = 0; i < n; i++)
        if (20 - tg[i].st->nice > r) r = 20 - tg[i].st->nice;
    free(tg);
    return emulate(t, r);
}

enum sys_action sys_setpriority(struct world *w, struct thread *t)
{
    int which = (int)ARG0(t), nice = (int)ARG2(t);
    if (which < PRIO_PROCESS || which > PRIO_USER) return emulate(t, -EINVAL);
    nice = nice < -20 ? -20 : nice > 19 ? 19 : nice;
    size_t n;
    struct target *tg = who_targets(w, t, which, (int)ARG1(t), &n);
    struct creds me;
    read_creds(t->tid, &me);
    long err = -ESRCH;
    for (size_t i = 0; i < n; i++) {       /* set_one_prio: the last failure stands */
        struct sched_perm perm;
        perm_for(&me, tg[i].host_tid, &perm);
        int r = sched_set_nice(tg[i].st, nice, &perm);
        if (r) err = r;
        else if (err == -ESRCH) err = 0;
    }
    free(tg);
    return emulate(t, err);
}

/* ---- I/O priorities ---- */

enum { WHO_PROCESS = 1, WHO_PGRP, WHO_USER };

enum sys_action sys_ioprio_set(struct world *w, struct thread *t)
{
    int which = (int)ARG0(t), ioprio = (int)ARG2(t);
    struct creds me;
    read_creds(t->tid, &me);
    long r = ioprio_check(ioprio, me.cap_sys_nice);
    if (r) return emulate(t, r);
    if (which < WHO_PROCESS || which > WHO_USER) return emulate(t, -EINVAL);
    size_t n;
    struct target *tg = who_targets(w, t, which - WHO_PROCESS + PRIO_PROCESS, (int)ARG1(t), &n);
    r = -ESRCH;
    for (size_t i = 0; i < n; i++) {       /* set_task_ioprio: stops at a failure */
        struct creds tc;
        read_creds(tg[i].host_tid, &tc);
        if (tc.uid != me.euid && tc.uid != me.uid && !me.cap_sys_nice) { r = -EPERM; break; }
        tg[i].st->ioprio = (uint16_t)ioprio;
        r = 0;
    }
    free(tg);
    return emulate(t, r);
}

enum sys_action sys_ioprio_get(struct world *w, struct thread *t)
{
    int which = (int)ARG0(t);
    if (which < WHO_PROCESS || which > WHO_USER) return emulate(t, -EINVAL);
    size_t n;
    struct target *tg = who_targets(w, t, which - WHO_PROCESS + PRIO_PROCESS, (int)ARG1(t), &n);
    long r = -ESRCH;
    if (which == WHO_PROCESS && n) r = tg[0].st->ioprio;    /* as set */
    for (size_t i = 0; which != WHO_PROCESS && i < n; i++) {  /* the best that counts */
        int p = ioprio_effective(tg[i].st);
        if (r == -ESRCH || p < r) r = p;
    }
    free(tg);
    return emulate(t, r);
}

/* ---- affinity ---- */

/* The kernel's mask size for the machine's CPUs (nr_cpu_ids in longs). */
static size_t mask_size(struct world *w) { return ((w->conf->cpus + 63) / 64) * 8; }

enum sys_action sys_sched_getaffinity(struct world *w, struct thread *t)
{
    size_t len = (unsigned)ARG1(t), size = mask_size(w);
    struct target tg;
    if (len * 8 < w->conf->cpus || (len & 7)) return emulate(t, -EINVAL);
    if (!find_target(w, t, (int)ARG0(t), &tg)) return emulate(t, -ESRCH);
    size_t n = len < size ? len : size;
    return emulate(t, mem_write(t->tid, ARG2(t), tg.st->cpus, n) ? -EFAULT : (long)n);
}

enum sys_action sys_sched_setaffinity(struct world *w, struct thread *t)
{
    size_t len = (unsigned)ARG1(t), size = mask_size(w);
    uint64_t mask[SCHED_MODEL_CPUS / 64] = { 0 };
    struct target tg;
    if (mem_read(t->tid, ARG2(t), mask, len < size ? len : size)) return emulate(t, -EFAULT);
    if (!find_target(w, t, (int)ARG0(t), &tg)) return emulate(t, -ESRCH);
    struct creds me;
    struct sched_perm perm;
    read_creds(t->tid, &me);
    perm_for(&me, tg.host_tid, &perm);
    return emulate(t, sched_set_affinity(tg.st, mask, &perm, w->conf->cpus));
}

/* ---- yielding, and the CPU a thread is on (one at a time: CPU 0) ---- */

enum sys_action sys_sched_yield(struct world *w, struct thread *t) { return emulate(t, 0); }

enum sys_action sys_getcpu(struct world *w, struct thread *t)
{
    unsigned zero = 0;
    if (ARG0(t) && mem_write(t->tid, ARG0(t), &zero, sizeof zero)) return emulate(t, -EFAULT);
    if (ARG1(t) && mem_write(t->tid, ARG1(t), &zero, sizeof zero)) return emulate(t, -EFAULT);
    return emulate(t, 0);
}
