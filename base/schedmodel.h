/* A machine's own scheduler: the policies, priorities, nice values, I/O
 * priorities and CPU affinities its threads set and read back, kept by dsim
 * and never applied to the host (where every tracee runs as dsim placed it,
 * one at a time). The rules are Linux 6.x's (kernel/sched/syscalls.c,
 * block/ioprio.c) for a kernel without uclamp or sched_ext: validation and
 * its order, permission checks, SCHED_RESET_ON_FORK, inheritance at fork,
 * SCHED_DEADLINE admission on the machine's CPUs. Pure, unit-tested alone;
 * syscalls/sched.c finds the threads and reads the credentials. */
#ifndef DSIM_SCHEDMODEL_H
#define DSIM_SCHEDMODEL_H
#include <stdbool.h>
#include <stdint.h>

#define SCHED_MODEL_CPUS 1024           /* the most CPUs a machine can have */

/* struct sched_attr of the uapi (VER1, 56 bytes), as it is in memory. */
struct sched_attr_req {
    uint32_t size;
    uint32_t policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
    uint32_t util_min, util_max;
};
#define SCHED_ATTR_SIZE_VER0 48
#define SCHED_ATTR_SIZE_VER1 56

/* sched_setscheduler's policy word and sched_setattr's flags. */
#define SCHED_POLICY_RESET_ON_FORK 0x40000000
#define SCHED_SETPARAM_POLICY (-1)      /* sched_setparam: keep the policy */
#define SCHED_F_RESET_ON_FORK 0x01
#define SCHED_F_RECLAIM 0x02
#define SCHED_F_DL_OVERRUN 0x04
#define SCHED_F_KEEP_POLICY 0x08
#define SCHED_F_KEEP_PARAMS 0x10
#define SCHED_F_UTIL_CLAMP 0x60
#define SCHED_F_ALL 0x7f
#define SCHED_F_SUGOV 0x10000000

struct sched_state {
    int policy;                 /* SCHED_OTHER, _FIFO, _RR, _BATCH, _IDLE, _DEADLINE */
    uint32_t rt_priority;       /* 1..99 under FIFO and RR */
    int nice;                   /* the static priority, kept under every policy */
    bool reset_on_fork;
    uint64_t dl_runtime, dl_deadline, dl_period, dl_flags;
    uint16_t ioprio;            /* as set; 0: none */
    uint64_t cpus[SCHED_MODEL_CPUS / 64];  /* affinity */
};

/* What the permission checks know of the caller and the target thread. */
struct sched_perm {
    bool cap_sys_nice;          /* the caller's effective CAP_SYS_NICE */
    bool same_owner;            /* caller's euid is the target's euid or uid */
    bool prio_owner;            /* target's uid or euid is the caller's euid (setpriority) */
    bool io_owner;              /* target's uid is the caller's euid or uid (ioprio_set) */
    uint64_t rlim_nice, rlim_rtprio;   /* the target's soft limits */
};

/* The machine's CPUs, and the deadline bandwidth of its other threads. */
struct sched_domain {
    unsigned cpus;
    uint64_t dl_bw_others;
};

/* A new thread of a machine with `cpus` CPUs: SCHED_OTHER, nice 0, every CPU. */
void sched_state_init(struct sched_state *s, unsigned cpus);
/* The state of a thread cloned from parent; -EAGAIN (and nothing set) if a
 * SCHED_DEADLINE thread without reset-on-fork clones, as Linux refuses. */
int sched_fork(struct sched_state *child, const struct sched_state *parent);

/* sched_setattr (and sched_setscheduler, sched_setparam through
 * sched_attr_of_param): 0 or -errno, in Linux's order. */
int sched_set(struct sched_state *s, const struct sched_attr_req *attr, const struct sched_perm *perm,
              const struct sched_domain *d);
/* sched_setattr's own part: KEEP_POLICY and KEEP_PARAMS, then sched_set. */
int sched_set_attr(struct sched_state *s, const struct sched_attr_req *attr, const struct sched_perm *perm,
                   const struct sched_domain *d);
/* sched_setscheduler(policy) / sched_setparam (policy SCHED_SETPARAM_POLICY)
 * as the sched_attr Linux builds from them. */
struct sched_attr_req sched_attr_of_param(const struct sched_state *s, int policy, int priority);
/* sched_getattr's fields (not size). */
void sched_get(const struct sched_state *s, struct sched_attr_req *out);
/* sched_getscheduler's answer: the policy, with SCHED_RESET_ON_FORK. */
int sched_get_policy(const struct sched_state *s);
/* sched_getparam's priority. */
int sched_get_priority(const struct sched_state *s);

/* setpriority on one thread, nice already clamped to -20..19: 0, -EPERM or
 * -EACCES. */
int sched_set_nice(struct sched_state *s, int nice, const struct sched_perm *perm);

/* ioprio_set's check of the value (before any target is looked up). */
int ioprio_check(int ioprio, bool cap_sys_nice);
/* The priority that counts for I/O (ioprio_get of a group or user): the
 * set one, or one derived from the policy and nice value. */
int ioprio_effective(const struct sched_state *s);

/* sched_setaffinity with the caller's mask (bits past the machine's CPUs
 * ignored): 0, -EPERM, -EBUSY (a deadline thread must keep every CPU) or
 * -EINVAL (no CPU of the machine). */
int sched_set_affinity(struct sched_state *s, const uint64_t *mask, const struct sched_perm *perm, unsigned cpus);

/* The bandwidth a SCHED_DEADLINE thread reserves (Linux's fixed point), 0
 * for the others. */
uint64_t sched_dl_bw(const struct sched_state *s);
#endif
