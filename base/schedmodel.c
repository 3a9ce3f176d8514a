/* A machine's own scheduler state (schedmodel.h). */
#include "base/schedmodel.h"
#include <errno.h>
#include <sched.h>
#include <string.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#define MAX_RT_PRIO 100
#define DL_SCALE 10
#define DL_PERIOD_MIN_NS 100000ULL              /* sched_deadline_period_min_us */
#define DL_PERIOD_MAX_NS (4194304ULL * 1000)    /* sched_deadline_period_max_us */
#define BW_SHIFT 20
#define RT_BW 996147ULL                         /* 950000 of 1000000 us, in BW_SHIFT fixed point */
#define DL_FLAGS (SCHED_F_RECLAIM | SCHED_F_DL_OVERRUN | SCHED_F_SUGOV)
#define IOPRIO_CLASS(p) (((p) >> 13) & 7)
enum { IOPRIO_NONE, IOPRIO_RT, IOPRIO_BE, IOPRIO_IDLE };

static bool fair_policy(int p) { return p == SCHED_OTHER || p == SCHED_BATCH; }
static bool rt_policy(int p) { return p == SCHED_FIFO || p == SCHED_RR; }
static bool dl_policy(int p) { return p == SCHED_DEADLINE; }
static bool valid_policy(int p) { return fair_policy(p) || rt_policy(p) || dl_policy(p) || p == SCHED_IDLE; }

void sched_state_init(struct sched_state *s, unsigned cpus)
{
    memset(s, 0, sizeof *s);
    s->policy = SCHED_OTHER;
    for (unsigned i = 0; i < cpus && i < SCHED_MODEL_CPUS; i++) s->cpus[i / 64] |= 1ULL << (i % 64);
}

/* sched_fork: reset-on-fork gives the child SCHED_OTHER at nice 0 (or no
 * better than nice 0), once. */
int sched_fork(struct sched_state *child, const struct sched_state *parent)
{
    struct sched_state c = *parent;
    if (c.reset_on_fork) {
        if (dl_policy(c.policy) || rt_policy(c.policy)) {
            c.policy = SCHED_OTHER;
            c.nice = 0;
            c.rt_priority = 0;
        } else if (c.nice < 0) {
            c.nice = 0;
        }
        c.reset_on_fork = false;
    }
    if (dl_policy(c.policy)) return -EAGAIN;
    *child = c;
    return 0;
}

/* can_nice: RLIMIT_NICE counts 20 - nice. */
static bool can_nice(const struct sched_perm *perm, int nice)
{
    return (uint64_t)(20 - nice) <= perm->rlim_nice || perm->cap_sys_nice;
}

static bool checkparam_dl(const struct sched_attr_req *a)
{
    if (a->flags & SCHED_F_SUGOV) return true;
    if (a->deadline == 0 || a->runtime < (1ULL << DL_SCALE)) return false;
    if ((a->deadline & (1ULL << 63)) || (a->period & (1ULL << 63))) return false;
    uint64_t period = a->period ? a->period : a->deadline;
    if (period < a->deadline || a->deadline < a->runtime) return false;
    return period >= DL_PERIOD_MIN_NS && period <= DL_PERIOD_MAX_NS;
}

/* user_check_sched_setscheduler: what an unprivileged caller may do. */
static int user_check(const struct sched_state *s, const struct sched_attr_req *a, int policy, bool reset,
                      const struct sched_perm *perm)
{
    bool priv = false;
    if (fair_policy(policy) && a->nice < s->nice && !can_nice(perm, a->nice)) priv = true;
    if (rt_policy(policy)) {
        if (policy != s->policy && !perm->rlim_rtprio) priv = true;
        if (a->priority > s->rt_priority && a->priority > perm->rlim_rtprio) priv = true;
    }
    if (dl_policy(policy)) priv = true;
    if (s->policy == SCHED_IDLE && policy != SCHED_IDLE && !can_nice(perm, s->nice)) priv = true;
    if (!perm->same_owner) priv = true;
    if (s->reset_on_fork && !reset) priv = true;
    return priv && !perm->cap_sys_nice ? -EPERM : 0;
}

static uint64_t to_ratio(uint64_t period, uint64_t runtime)
{
    return period ? (runtime << BW_SHIFT) / period : 0;
}

uint64_t sched_dl_bw(const struct sched_state *s)
{
    return dl_policy(s->policy) ? to_ratio(s->dl_period, s->dl_runtime) : 0;
}

static bool dl_changed(const struct sched_state *s, const struct sched_attr_req *a)
{
    return s->dl_runtime != a->runtime || s->dl_deadline != a->deadline || s->dl_period != a->period ||
           s->dl_flags != (a->flags & DL_FLAGS);
}

static bool spans_all(const struct sched_state *s, unsigned cpus)
{
    for (unsigned i = 0; i < cpus && i < SCHED_MODEL_CPUS; i++)
        if (!(s->cpus[i / 64] & (1ULL << (i % 64)))) return false;
    return true;
}

/* __sched_setscheduler, from a user, on one thread. */
int sched_set(struct sched_state *s, const struct sched_attr_req *a, const struct sched_perm *perm,
              const struct sched_domain *d)
{
    int policy = (int)a->policy;
    bool reset;
    if (policy < 0) {
        reset = s->reset_on_fork;
        policy = s->policy;
    } else {
        reset = a->flags & SCHED_F_RESET_ON_FORK;
        if (!valid_policy(policy)) return -EINVAL;
    }
    if (a->flags & ~(uint64_t)(SCHED_F_ALL | SCHED_F_SUGOV)) return -EINVAL;
    if (a->priority > MAX_RT_PRIO - 1) return -EINVAL;
    if ((dl_policy(policy) && !checkparam_dl(a)) || rt_policy(policy) != (a->priority != 0)) return -EINVAL;
    int r = user_check(s, a, policy, reset, perm);
    if (r) return r;
    if (a->flags & SCHED_F_SUGOV) return -EINVAL;
    if (a->flags & SCHED_F_UTIL_CLAMP) return -EOPNOTSUPP;     /* no uclamp */
    if (policy == s->policy) {
        bool change = (fair_policy(policy) && a->nice != s->nice) ||
                      (rt_policy(policy) && a->priority != s->rt_priority) ||
                      (dl_policy(policy) && dl_changed(s, a));
        if (!change) {
            s->reset_on_fork = reset;
            return 0;
        }
    }
    if (dl_policy(policy)) {
        /* Only a thread free to run on every CPU of the machine, and only
         * as long as the machine's bandwidth (95% of each CPU) holds it. */
        if (!spans_all(s, d->cpus)) return -EPERM;
        uint64_t bw = to_ratio(a->period ? a->period : a->deadline, a->runtime);
        if (!(dl_policy(s->policy) && bw == sched_dl_bw(s)) && RT_BW * d->cpus < d->dl_bw_others + bw)
            return -EBUSY;
    }
    s->reset_on_fork = reset;
    if (a->flags & SCHED_F_KEEP_PARAMS) return 0;
    s->policy = policy;
    if (dl_policy(policy)) {
        s->dl_runtime = a->runtime;
        s->dl_deadline = a->deadline;
        s->dl_period = a->period ? a->period : a->deadline;
        s->dl_flags = a->flags & DL_FLAGS;
    } else if (fair_policy(policy)) {
        s->nice = a->nice;
    }
    s->rt_priority = a->priority;
    return 0;
}

int sched_set_attr(struct sched_state *s, const struct sched_attr_req *attr, const struct sched_perm *perm,
                   const struct sched_domain *d)
{
    struct sched_attr_req a = *attr;
    if (a.flags & SCHED_F_KEEP_POLICY) a.policy = (uint32_t)SCHED_SETPARAM_POLICY;
    if (a.flags & SCHED_F_KEEP_PARAMS) {         /* get_params */
        if (dl_policy(s->policy)) {
            a.priority = s->rt_priority;
            a.runtime = s->dl_runtime;
            a.deadline = s->dl_deadline;
            a.period = s->dl_period;
            a.flags = (a.flags & ~(uint64_t)DL_FLAGS) | s->dl_flags;
        } else if (rt_policy(s->policy)) {
            a.priority = s->rt_priority;
        } else {
            a.nice = s->nice;
        }
    }
    return sched_set(s, &a, perm, d);
}

struct sched_attr_req sched_attr_of_param(const struct sched_state *s, int policy, int priority)
{
    struct sched_attr_req a = { .policy = (uint32_t)policy, .priority = (uint32_t)priority, .nice = s->nice };
    if (policy != SCHED_SETPARAM_POLICY && (policy & SCHED_POLICY_RESET_ON_FORK)) {
        a.flags |= SCHED_F_RESET_ON_FORK;
        a.policy = (uint32_t)(policy & ~SCHED_POLICY_RESET_ON_FORK);
    }
    return a;
}

void sched_get(const struct sched_state *s, struct sched_attr_req *out)
{
    uint32_t size = out->size;
    memset(out, 0, sizeof *out);
    out->size = size;
    out->policy = (uint32_t)s->policy;
    if (s->reset_on_fork) out->flags |= SCHED_F_RESET_ON_FORK;
    if (dl_policy(s->policy)) {
        out->priority = s->rt_priority;
        out->runtime = s->dl_runtime;
        out->deadline = s->dl_deadline;
        out->period = s->dl_period;
        out->flags |= s->dl_flags;
    } else if (rt_policy(s->policy)) {
        out->priority = s->rt_priority;
    } else {
        out->nice = s->nice;
    }
    out->flags &= SCHED_F_ALL;
}

int sched_get_policy(const struct sched_state *s)
{
    return s->policy | (s->reset_on_fork ? SCHED_POLICY_RESET_ON_FORK : 0);
}

int sched_get_priority(const struct sched_state *s)
{
    return rt_policy(s->policy) ? (int)s->rt_priority : 0;
}

/* set_one_prio. */
int sched_set_nice(struct sched_state *s, int nice, const struct sched_perm *perm)
{
    if (!perm->prio_owner && !perm->cap_sys_nice) return -EPERM;
    if (nice < s->nice && !can_nice(perm, nice)) return -EACCES;
    s->nice = nice;
    return 0;
}

int ioprio_check(int ioprio, bool cap_sys_nice)
{
    switch (IOPRIO_CLASS(ioprio)) {
    case IOPRIO_RT:
        if (!cap_sys_nice) return -EPERM;
        return 0;
    case IOPRIO_BE:
    case IOPRIO_IDLE:
        return 0;
    case IOPRIO_NONE:
        return ioprio & 7 ? -EINVAL : 0;
    default:
        return -EINVAL;
    }
}

/* __get_task_ioprio: an unset priority follows the scheduling class and
 * the nice value. */
int ioprio_effective(const struct sched_state *s)
{
    if (IOPRIO_CLASS(s->ioprio) != IOPRIO_NONE) return s->ioprio;
    int cls = s->policy == SCHED_IDLE ? IOPRIO_IDLE : rt_policy(s->policy) || dl_policy(s->policy) ? IOPRIO_RT : IOPRIO_BE;
    return cls << 13 | (s->nice + 20) / 5;
}

int sched_set_affinity(struct sched_state *s, const uint64_t *mask, const struct sched_perm *perm, unsigned cpus)
{
    if (!perm->same_owner && !perm->cap_sys_nice) return -EPERM;
    uint64_t m[SCHED_MODEL_CPUS / 64] = { 0 };
    bool any = false;
    for (unsigned i = 0; i < cpus && i < SCHED_MODEL_CPUS; i++)
        if (mask[i / 64] & (1ULL << (i % 64))) {
            m[i / 64] |= 1ULL << (i % 64);
            any = true;
        }
    if (dl_policy(s->policy)) {
        struct sched_state probe = *s;
        memcpy(probe.cpus, m, sizeof m);
        if (!spans_all(&probe, cpus)) return -EBUSY;
    }
    if (!any) return -EINVAL;
    memcpy(s->cpus, m, sizeof m);
    return 0;
}
