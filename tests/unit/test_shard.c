/* Unit tests for --shard I/N and the CI systems' shard variables
 * (base/shard.c): every way of naming N shards splits a sweep into N
 * parts that hold each seed exactly once. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/shard.h"
#include "tests/unit/suite.h"

static const char *vars[16][2];
static size_t nvars;
static char err[512];

static const char *fake_env(const char *name)
{
	for (size_t i = 0; i < nvars; i++)
		if (!strcmp(vars[i][0], name)) return vars[i][1];
	return NULL;
}

static void set(const char *name, const char *value) { vars[nvars][0] = name; vars[nvars++][1] = value; }

/* Over shards named by each call of name(k) (k = 1..n), the seeds 1-100
 * are each run exactly once. */
static void partitions(unsigned long n, void (*name)(unsigned long k, unsigned long n, char *opt))
{
	int runs[101] = { 0 };
	for (unsigned long k = 1; k <= n; k++) {
		char opt[64] = "";
		nvars = 0;
		name(k, n, opt);
		struct shard s;
		ck_assert_msg(shard_find(opt[0] ? opt : NULL, fake_env, &s, err, sizeof err) == 1, "%lu/%lu: %s", k, n, err);
		ck_assert_uint_eq(s.count, n);
		for (size_t i = 0; i < 100; i++)
			if (shard_has(&s, i)) runs[i + 1]++;
	}
	for (int seed = 1; seed <= 100; seed++) ck_assert_msg(runs[seed] == 1, "seed %d run %d times", seed, runs[seed]);
}

static char bufs[4][32];
static void by_option(unsigned long k, unsigned long n, char *opt) { sprintf(opt, "%lu/%lu", k, n); }
static void by_gitlab(unsigned long k, unsigned long n, char *opt)
{
	(void)opt;
	sprintf(bufs[0], "%lu", k);             /* GitLab: 1..N */
	sprintf(bufs[1], "%lu", n);
	set("CI_NODE_INDEX", bufs[0]);
	set("CI_NODE_TOTAL", bufs[1]);
}
static void by_slurm(unsigned long k, unsigned long n, char *opt)
{
	(void)opt;
	sprintf(bufs[0], "%lu", 10 + 3 * (k - 1));     /* --array=10-...:3 */
	sprintf(bufs[1], "%lu", n);
	set("SLURM_ARRAY_TASK_ID", bufs[0]);
	set("SLURM_ARRAY_TASK_COUNT", bufs[1]);
	set("SLURM_ARRAY_TASK_MIN", "10");
	set("SLURM_ARRAY_TASK_STEP", "3");
}
static void by_slurm_plain(unsigned long k, unsigned long n, char *opt)
{
	(void)opt;
	sprintf(bufs[0], "%lu", k - 1);         /* --array=0-(N-1) */
	sprintf(bufs[1], "%lu", n);
	set("SLURM_ARRAY_TASK_ID", bufs[0]);
	set("SLURM_ARRAY_TASK_COUNT", bufs[1]);
}
static void by_kubernetes(unsigned long k, unsigned long n, char *opt)
{
	(void)opt;
	sprintf(bufs[0], "%lu", k - 1);         /* JOB_COMPLETION_INDEX: 0..N-1 */
	sprintf(bufs[1], "%lu", n);
	set("JOB_COMPLETION_INDEX", bufs[0]);
	set("DSIM_SHARDS", bufs[1]);
}

START_TEST(test_partitions)
{
	unsigned long ns[] = { 1, 2, 3, 7, 100, 101 };
	for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
		partitions(ns[i], by_option);
		partitions(ns[i], by_gitlab);
		partitions(ns[i], by_slurm);
		partitions(ns[i], by_slurm_plain);
		partitions(ns[i], by_kubernetes);
	}
}
END_TEST

START_TEST(test_one_based)
{
	struct shard s;
	nvars = 0;
	ck_assert_int_eq(shard_find("1/3", fake_env, &s, err, sizeof err), 1);
	ck_assert_uint_eq(s.index, 0);
	ck_assert_int_eq(shard_find("3/3", fake_env, &s, err, sizeof err), 1);
	ck_assert_uint_eq(s.index, 2);
	const char *bad[] = { "0/3", "4/3", "1/0", "0/0", "3", "/3", "1/", "-1/3", "1/3x", " 1/3", "a/b", "1/9999999999" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err[0] = 0;
		ck_assert_msg(shard_find(bad[i], fake_env, &s, err, sizeof err) == -1, "%s", bad[i]);
		ck_assert_msg(strstr(err, "1 <= I <= N") != NULL, "%s", err);
	}
	/* --shard wins over the environment. */
	set("CI_NODE_INDEX", "2");
	set("CI_NODE_TOTAL", "2");
	ck_assert_int_eq(shard_find("1/4", fake_env, &s, err, sizeof err), 1);
	ck_assert_uint_eq(s.count, 4);
}
END_TEST

START_TEST(test_env_errors)
{
	struct shard s;
	nvars = 0;
	ck_assert_int_eq(shard_find(NULL, fake_env, &s, err, sizeof err), 0);
	set("CI_NODE_INDEX", "1");          /* without its count */
	ck_assert_int_eq(shard_find(NULL, fake_env, &s, err, sizeof err), -1);
	ck_assert(strstr(err, "CI_NODE_TOTAL") != NULL);
	nvars = 0;
	set("CI_NODE_INDEX", "0");          /* GitLab counts from 1 */
	set("CI_NODE_TOTAL", "3");
	ck_assert_int_eq(shard_find(NULL, fake_env, &s, err, sizeof err), -1);
	nvars = 0;
	set("JOB_COMPLETION_INDEX", "3");   /* Kubernetes counts from 0 */
	set("DSIM_SHARDS", "3");
	ck_assert_int_eq(shard_find(NULL, fake_env, &s, err, sizeof err), -1);
	nvars = 0;
	set("SLURM_ARRAY_TASK_ID", "4");    /* not a task of --array=1-7:2 */
	set("SLURM_ARRAY_TASK_COUNT", "4");
	set("SLURM_ARRAY_TASK_MIN", "1");
	set("SLURM_ARRAY_TASK_STEP", "2");
	ck_assert_int_eq(shard_find(NULL, fake_env, &s, err, sizeof err), -1);
}
END_TEST

int main(void)
{
	return RUN_TESTS("shard", test_partitions, test_one_based, test_env_errors);
}
