/* Unit tests for a machine's own scheduler state (base/schedmodel.c):
 * Linux 6.x's rules for a kernel without uclamp or sched_ext. */
#include <check.h>
#include <errno.h>
#include <sched.h>

#include "base/schedmodel.h"
#include "tests/unit/suite.h"

static const struct sched_perm root = { .cap_sys_nice = true, .same_owner = true, .prio_owner = true, .io_owner = true };
static const struct sched_perm user = { .same_owner = true, .prio_owner = true, .io_owner = true };
static const struct sched_domain two = { 2, 0 };

static int set_param(struct sched_state *s, int policy, int prio, const struct sched_perm *p)
{
	struct sched_attr_req a = sched_attr_of_param(s, policy, prio);
	return sched_set(s, &a, p, &two);
}

START_TEST(test_defaults)
{
	struct sched_state s;
	sched_state_init(&s, 3);
	ck_assert_int_eq(sched_get_policy(&s), SCHED_OTHER);
	ck_assert_int_eq(sched_get_priority(&s), 0);
	ck_assert_int_eq(s.nice, 0);
	ck_assert_int_eq(s.ioprio, 0);
	ck_assert_uint_eq(s.cpus[0], 7);
}
END_TEST

/* Validation and its order: EINVAL before EPERM. */
START_TEST(test_validation)
{
	struct sched_state s;
	sched_state_init(&s, 2);
	ck_assert_int_eq(set_param(&s, SCHED_FIFO, 100, &root), -EINVAL);
	ck_assert_int_eq(set_param(&s, SCHED_FIFO, 0, &root), -EINVAL);
	ck_assert_int_eq(set_param(&s, SCHED_OTHER, 1, &root), -EINVAL);
	ck_assert_int_eq(set_param(&s, 4, 0, &root), -EINVAL);
	ck_assert_int_eq(set_param(&s, 7, 0, &root), -EINVAL);     /* no sched_ext */
	ck_assert_int_eq(set_param(&s, SCHED_FIFO, -1, &root), -EINVAL);
	ck_assert_int_eq(set_param(&s, SCHED_FIFO, 100, &user), -EINVAL);
	ck_assert_int_eq(set_param(&s, SCHED_SETPARAM_POLICY, 5, &root), -EINVAL);
	ck_assert_int_eq(sched_get_policy(&s), SCHED_OTHER);
}
END_TEST

START_TEST(test_fifo_and_back)
{
	struct sched_state s;
	sched_state_init(&s, 2);
	ck_assert_int_eq(sched_set_nice(&s, -20, &root), 0);
	ck_assert_int_eq(set_param(&s, SCHED_FIFO, 99, &root), 0);
	ck_assert_int_eq(sched_get_policy(&s), SCHED_FIFO);
	ck_assert_int_eq(sched_get_priority(&s), 99);
	ck_assert_int_eq(s.nice, -20);          /* kept under FIFO */
	struct sched_attr_req a = { .size = 56 };
	sched_get(&s, &a);
	ck_assert_uint_eq(a.policy, SCHED_FIFO);
	ck_assert_uint_eq(a.priority, 99);
	ck_assert_int_eq(a.nice, 0);            /* getattr: the rt priority only */
	ck_assert_uint_eq(a.size, 56);
	ck_assert_int_eq(set_param(&s, SCHED_SETPARAM_POLICY, 10, &root), 0);
	ck_assert_int_eq(sched_get_priority(&s), 10);
	ck_assert_int_eq(set_param(&s, SCHED_OTHER, 0, &root), 0);
	ck_assert_int_eq(sched_get_priority(&s), 0);
	ck_assert_int_eq(s.nice, -20);
}
END_TEST

/* What needs CAP_SYS_NICE, with RLIMIT_NICE and RLIMIT_RTPRIO at 0. */
START_TEST(test_unprivileged)
{
	struct sched_state s;
	sched_state_init(&s, 2);
	ck_assert_int_eq(set_param(&s, SCHED_FIFO, 1, &user), -EPERM);
	ck_assert_int_eq(sched_set_nice(&s, -1, &user), -EACCES);
	ck_assert_int_eq(sched_set_nice(&s, 5, &user), 0);
	ck_assert_int_eq(sched_set_nice(&s, 2, &user), -EACCES);
	struct sched_perm rlim = user;
	rlim.rlim_nice = 18;                    /* 20 - 2 */
	ck_assert_int_eq(sched_set_nice(&s, 2, &rlim), 0);
	struct sched_perm other = { 0 };
	ck_assert_int_eq(sched_set_nice(&s, 10, &other), -EPERM);
	ck_assert_int_eq(set_param(&s, SCHED_OTHER, 0, &other), -EPERM);
	ck_assert_int_eq(set_param(&s, SCHED_IDLE, 0, &user), 0);
	ck_assert_int_eq(set_param(&s, SCHED_OTHER, 0, &user), -EPERM);   /* leaving IDLE needs can_nice */
	rlim.rlim_rtprio = 10;
	ck_assert_int_eq(set_param(&s, SCHED_RR, 10, &rlim), 0);
	ck_assert_int_eq(set_param(&s, SCHED_RR, 11, &rlim), -EPERM);
}
END_TEST

/* SCHED_RESET_ON_FORK and inheritance. */
START_TEST(test_fork)
{
	struct sched_state p, c;
	sched_state_init(&p, 2);
	sched_set_nice(&p, -5, &root);
	set_param(&p, SCHED_FIFO, 20, &root);
	p.ioprio = 1 << 13;
	ck_assert_int_eq(sched_fork(&c, &p), 0);
	ck_assert_int_eq(sched_get_policy(&c), SCHED_FIFO);
	ck_assert_int_eq(c.nice, -5);
	ck_assert_int_eq(c.ioprio, 1 << 13);
	ck_assert_int_eq(set_param(&p, SCHED_FIFO | SCHED_POLICY_RESET_ON_FORK, 20, &root), 0);
	ck_assert_int_eq(sched_get_policy(&p), SCHED_FIFO | SCHED_POLICY_RESET_ON_FORK);
	ck_assert_int_eq(sched_fork(&c, &p), 0);
	ck_assert_int_eq(sched_get_policy(&c), SCHED_OTHER);
	ck_assert_int_eq(c.nice, 0);
	ck_assert_int_eq(sched_get_priority(&c), 0);
	/* Clearing the flag is for the privileged. */
	ck_assert_int_eq(set_param(&p, SCHED_FIFO, 20, &user), -EPERM);
	/* A fair thread keeps a nice above 0 through a reset. */
	struct sched_state f;
	sched_state_init(&f, 2);
	sched_set_nice(&f, 4, &root);
	set_param(&f, SCHED_OTHER | SCHED_POLICY_RESET_ON_FORK, 0, &root);
	ck_assert_int_eq(sched_fork(&c, &f), 0);
	ck_assert_int_eq(c.nice, 4);
}
END_TEST

START_TEST(test_deadline)
{
	struct sched_state s, c;
	sched_state_init(&s, 2);
	struct sched_attr_req a = { .size = 56, .policy = 6, .runtime = 1000000, .deadline = 10000000, .period = 10000000 };
	ck_assert_int_eq(sched_set_attr(&s, &a, &user, &two), -EPERM);
	ck_assert_int_eq(sched_set_attr(&s, &a, &root, &two), 0);
	ck_assert_int_eq(sched_fork(&c, &s), -EAGAIN);
	ck_assert_uint_gt(sched_dl_bw(&s), 0);
	struct sched_attr_req bad = a;
	bad.runtime = 20000000;
	ck_assert_int_eq(sched_set_attr(&s, &bad, &root, &two), -EINVAL);
	bad = a;
	bad.period = 50000;                     /* below 100 us */
	bad.deadline = 50000;
	bad.runtime = 10000;
	ck_assert_int_eq(sched_set_attr(&s, &bad, &root, &two), -EINVAL);
	/* Admission: 95% of each of the machine's CPUs. */
	struct sched_state t;
	sched_state_init(&t, 2);
	struct sched_domain full = { 2, 2 * 996147ULL - 1000 };
	ck_assert_int_eq(sched_set_attr(&t, &a, &root, &full), -EBUSY);
	/* Affinity: every CPU, to become or stay a deadline thread. */
	uint64_t one[SCHED_MODEL_CPUS / 64] = { 1 };
	ck_assert_int_eq(sched_set_affinity(&s, one, &root, 2), -EBUSY);
	ck_assert_int_eq(sched_set_affinity(&t, one, &root, 2), 0);
	ck_assert_int_eq(sched_set_attr(&t, &a, &root, &two), -EPERM);
	struct sched_attr_req get = { .size = 56 };
	sched_get(&s, &get);
	ck_assert_uint_eq(get.runtime, 1000000);
	ck_assert_uint_eq(get.period, 10000000);
	/* KEEP_PARAMS keeps what there is. */
	struct sched_attr_req keep = { .size = 56, .policy = 6, .flags = SCHED_F_KEEP_PARAMS };
	ck_assert_int_eq(sched_set_attr(&s, &keep, &root, &two), 0);
	/* uclamp is not built. */
	struct sched_attr_req clamp = { .size = 56, .policy = 0, .flags = 0x20 };
	ck_assert_int_eq(sched_set_attr(&c, &clamp, &root, &two), -EOPNOTSUPP);
}
END_TEST

START_TEST(test_ioprio)
{
	ck_assert_int_eq(ioprio_check(1 << 13, false), -EPERM);
	ck_assert_int_eq(ioprio_check(1 << 13, true), 0);
	ck_assert_int_eq(ioprio_check(2 << 13 | 7, false), 0);
	ck_assert_int_eq(ioprio_check(2 << 13 | 8, false), 0);      /* a hint */
	ck_assert_int_eq(ioprio_check(1, false), -EINVAL);
	ck_assert_int_eq(ioprio_check(8, false), 0);
	ck_assert_int_eq(ioprio_check(4 << 13, true), -EINVAL);
	ck_assert_int_eq(ioprio_check(-1, true), -EINVAL);
	struct sched_state s;
	sched_state_init(&s, 2);
	ck_assert_int_eq(ioprio_effective(&s), 2 << 13 | 4);
	sched_set_nice(&s, -20, &root);
	ck_assert_int_eq(ioprio_effective(&s), 2 << 13 | 0);
	set_param(&s, SCHED_FIFO, 1, &root);
	ck_assert_int_eq(ioprio_effective(&s), 1 << 13 | 0);
	s.ioprio = 3 << 13;
	ck_assert_int_eq(ioprio_effective(&s), 3 << 13);
}
END_TEST

START_TEST(test_affinity)
{
	struct sched_state s;
	sched_state_init(&s, 4);
	uint64_t none[SCHED_MODEL_CPUS / 64] = { 0 }, far[SCHED_MODEL_CPUS / 64] = { 1ULL << 40 },
		 two_of[SCHED_MODEL_CPUS / 64] = { 0x6 | 1ULL << 40 };
	ck_assert_int_eq(sched_set_affinity(&s, none, &root, 4), -EINVAL);
	ck_assert_int_eq(sched_set_affinity(&s, far, &root, 4), -EINVAL);
	ck_assert_int_eq(sched_set_affinity(&s, two_of, &root, 4), 0);
	ck_assert_uint_eq(s.cpus[0], 0x6);
	struct sched_perm other = { 0 };
	ck_assert_int_eq(sched_set_affinity(&s, two_of, &other, 4), -EPERM);
}
END_TEST

int main(void)
{
	return RUN_TESTS("schedmodel", test_defaults, test_validation, test_fifo_and_back,
			 test_unprivileged, test_fork, test_deadline, test_ioprio, test_affinity);
}
