/* futex_ops: the futex operations, called raw with syscall(SYS_futex, ...).
 *
 *  - FUTEX_WAIT on a word that does not hold the expected value: EAGAIN
 *    (with and without a timeout).
 *  - FUTEX_WAIT with a 50 ms relative timeout: ETIMEDOUT, not before 50 ms.
 *    FUTEX_WAIT_BITSET with an absolute deadline 50 ms ahead, on
 *    CLOCK_MONOTONIC and with FUTEX_CLOCK_REALTIME: ETIMEDOUT, not before it.
 *  - FUTEX_WAIT_BITSET / FUTEX_WAKE_BITSET with bitset 0: EINVAL.
 *  - FUTEX_WAKE with nobody waiting: 0; with a waiter thread: 1, and the
 *    waiter's FUTEX_WAIT returns 0.
 *  - FUTEX_WAKE_BITSET with a bitset that does not intersect the waiter's
 *    wakes nobody (returns 0 every time, the waiter times out); one that
 *    does wakes it (returns 1).
 *  - FUTEX_CMP_REQUEUE: EAGAIN when val3 does not match; moves waiters from
 *    one word to another (the counts add up to 3), after which waking the
 *    first word wakes 0; nr_wake 1 + nr_requeue 1 returns 2; then each word
 *    has exactly one waiter left.
 *  - FUTEX_WAKE_OP: each operation (SET, ADD, OR, ANDN, XOR, OPARG_SHIFT)
 *    changes the second word as documented; it wakes a waiter on the first
 *    word, a waiter on the second word when the comparison holds, and none
 *    when it does not.
 *
 * A waiter cannot be known to be asleep in the kernel, so wherever a wake
 * must find one, main repeats the wake (1 ms apart) until it does: the
 * counts printed never depend on timing. Every line is deterministic
 * natively; the last is "ok". Exit 0 only if every check passed, 2 on a
 * setup error. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "selfcheck.h"

#define NS 1000000000LL
#define MS 1000000LL
#define MAX_ATTEMPTS 10000   /* 1 ms apart: 10 s */

static long futex(uint32_t *uaddr, int op, uint32_t val, const void *timeout_or_val2, uint32_t *uaddr2,
		  uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, timeout_or_val2, uaddr2, val3);
}

#define VAL2(n) ((const void *)(uintptr_t)(n))

/* <linux/futex.h>'s FUTEX_OP, in unsigned arithmetic (its "op << 28"
 * overflows int when op has FUTEX_OP_OPARG_SHIFT set). */
static uint32_t wake_op(unsigned op, unsigned oparg, unsigned cmp, unsigned cmparg)
{
	return ((op & 0xfu) << 28) | ((cmp & 0xfu) << 24) | ((oparg & 0xfffu) << 12) | (cmparg & 0xfffu);
}

/* "0", "1", "-1 EAGAIN", ... */
static const char *result(long r, int err)
{
	static char buf[8][64];
	static int k;
	char *b = buf[k++ % 8];
	if (r == -1)
		snprintf(b, 64, "-1 %s", strerrorname_np(err) ? strerrorname_np(err) : "E?");
	else
		snprintf(b, 64, "%ld", r);
	return b;
}

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static struct timespec ts_of(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / NS), (long)(ns % NS) };
	return ts;
}

static void pause_1ms(void)
{
	struct timespec d = ts_of(MS);
	nanosleep(&d, NULL);
}

/* ---- waiter threads ---- */

struct waiter {
	uint32_t *addr;
	int op;
	uint32_t val;
	int64_t timeout;        /* 0: none; else relative ns (made absolute for *_BITSET) */
	clockid_t clk;          /* of an absolute deadline */
	uint32_t bitset;
	long ret;
	int err;
	atomic_int finished;
	pthread_t th;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	struct timespec ts, *tp = NULL;
	int cmd = w->op & FUTEX_CMD_MASK;
	if (w->timeout) {
		ts = ts_of(cmd == FUTEX_WAIT_BITSET ? now_ns(w->clk) + w->timeout : w->timeout);
		tp = &ts;
	}
	long r = futex(w->addr, w->op, w->val, tp, NULL, w->bitset);
	w->err = errno;
	w->ret = r;
	atomic_store(&w->finished, 1);
	return NULL;
}

static void start(struct waiter *w)
{
	atomic_init(&w->finished, 0);
	int e = pthread_create(&w->th, NULL, waiter_main, w);
	if (e) {
		printf("FATAL pthread_create: %s\n", strerror(e));
		exit(2);
	}
}

static void finish(struct waiter *w, const char *what, long want_ret, int want_err)
{
	pthread_join(w->th, NULL);
	printf("%s: %s\n", what, result(w->ret, w->err));
	CHECK(w->ret == want_ret && (want_ret != -1 || w->err == want_err), "%s: got %s", what,
	      result(w->ret, w->err));
}

/* Repeats a wake until it reports a nonzero count; returns that count. */
#define WAKE_UNTIL_NONZERO(what, call)                                        \
	({                                                                    \
		long r_ = 0;                                                  \
		int n_ = 0;                                                   \
		while ((r_ = (call)) == 0 && ++n_ < MAX_ATTEMPTS)             \
			pause_1ms();                                          \
		if (r_ == 0) {                                                \
			printf("FAIL %s: never woke anyone\n", what);         \
			exit(1);                                              \
		}                                                             \
		r_;                                                           \
	})

static uint32_t w1, w2, q1, q2, f1, g1;

static void wait_tests(void)
{
	long r;
	int e;

	/* mismatched value */
	w1 = 1;
	errno = 0;
	r = futex(&w1, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	e = errno;
	printf("FUTEX_WAIT, value 1 expected 0: %s\n", result(r, e));
	CHECK(r == -1 && e == EAGAIN, "mismatch: %s", result(r, e));
	struct timespec rel = ts_of(50 * MS);
	errno = 0;
	r = futex(&w1, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0);
	e = errno;
	printf("FUTEX_WAIT with a timeout, value 1 expected 0: %s\n", result(r, e));
	CHECK(r == -1 && e == EAGAIN, "mismatch with timeout: %s", result(r, e));

	/* relative timeout */
	w1 = 0;
	int64_t t0 = now_ns(CLOCK_MONOTONIC);
	errno = 0;
	r = futex(&w1, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0);
	e = errno;
	int64_t waited = now_ns(CLOCK_MONOTONIC) - t0;
	printf("FUTEX_WAIT, 50 ms timeout: %s\n", result(r, e));
	CHECK(r == -1 && e == ETIMEDOUT, "timeout: %s", result(r, e));
	CHECK(waited >= 50 * MS, "timeout: returned after %lld ns", (long long)waited);
	printf("FUTEX_WAIT, 50 ms timeout: waited at least 50 ms\n");

	/* absolute deadlines */
	static const struct {
		const char *name;
		int op;
		clockid_t clk;
	} abs[] = {
		{ "FUTEX_WAIT_BITSET, CLOCK_MONOTONIC deadline", FUTEX_WAIT_BITSET_PRIVATE, CLOCK_MONOTONIC },
		{ "FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME deadline", FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME,
		  CLOCK_REALTIME },
	};
	for (int i = 0; i < 2; i++) {
		int64_t deadline = now_ns(abs[i].clk) + 50 * MS;
		struct timespec ts = ts_of(deadline);
		errno = 0;
		r = futex(&w1, abs[i].op, 0, &ts, NULL, FUTEX_BITSET_MATCH_ANY);
		e = errno;
		int64_t at = now_ns(abs[i].clk);
		printf("%s 50 ms ahead: %s\n", abs[i].name, result(r, e));
		CHECK(r == -1 && e == ETIMEDOUT, "%s: %s", abs[i].name, result(r, e));
		CHECK(at >= deadline, "%s: returned %lld ns early", abs[i].name, (long long)(deadline - at));
		printf("%s: returned no sooner than the deadline\n", abs[i].name);
	}

	/* bitset 0 */
	errno = 0;
	r = futex(&w1, FUTEX_WAIT_BITSET_PRIVATE, 0, NULL, NULL, 0);
	e = errno;
	printf("FUTEX_WAIT_BITSET, bitset 0: %s\n", result(r, e));
	CHECK(r == -1 && e == EINVAL, "wait bitset 0: %s", result(r, e));
	errno = 0;
	r = futex(&w1, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 0);
	e = errno;
	printf("FUTEX_WAKE_BITSET, bitset 0: %s\n", result(r, e));
	CHECK(r == -1 && e == EINVAL, "wake bitset 0: %s", result(r, e));
}

static void wake_tests(void)
{
	long r;

	/* nobody waiting */
	r = futex(&w1, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	printf("FUTEX_WAKE, nobody waiting: %s\n", result(r, errno));
	CHECK(r == 0, "wake nobody: %ld", r);

	/* one waiter */
	w1 = 0;
	struct waiter a = { .addr = &w1, .op = FUTEX_WAIT_PRIVATE, .val = 0 };
	start(&a);
	r = WAKE_UNTIL_NONZERO("FUTEX_WAKE", futex(&w1, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
	printf("FUTEX_WAKE, one waiter: %ld\n", r);
	CHECK(r == 1, "wake one waiter: %ld", r);
	finish(&a, "the waiter's FUTEX_WAIT", 0, 0);

	/* a bitset that does not match: wakes nobody, the waiter times out */
	w2 = 0;
	struct waiter b = { .addr = &w2, .op = FUTEX_WAIT_BITSET_PRIVATE, .val = 0, .timeout = 200 * MS,
			    .clk = CLOCK_MONOTONIC, .bitset = 0x1 };
	start(&b);
	long woken = 0, calls = 0;
	while (!atomic_load(&b.finished)) {
		r = futex(&w2, FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, NULL, NULL, 0x2);
		if (r != 0)
			woken += r;
		calls++;
		pause_1ms();
	}
	printf("FUTEX_WAKE_BITSET 0x2 on a waiter with bitset 0x1: woke %ld\n", woken);
	CHECK(woken == 0 && calls > 0, "non-matching bitset woke %ld (in %ld calls)", woken, calls);
	finish(&b, "the bitset 0x1 waiter (200 ms deadline)", -1, ETIMEDOUT);

	/* a bitset that matches */
	struct waiter c = { .addr = &w2, .op = FUTEX_WAIT_BITSET_PRIVATE, .val = 0, .bitset = 0x5 };
	start(&c);
	r = WAKE_UNTIL_NONZERO("FUTEX_WAKE_BITSET 0x4",
			       futex(&w2, FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, NULL, NULL, 0x4));
	printf("FUTEX_WAKE_BITSET 0x4 on a waiter with bitset 0x5: woke %ld\n", r);
	CHECK(r == 1, "matching bitset woke %ld", r);
	finish(&c, "the bitset 0x5 waiter", 0, 0);
}

static void requeue_tests(void)
{
	long r;
	int e;
	q1 = q2 = 0;

	errno = 0;
	r = futex(&q1, FUTEX_CMP_REQUEUE_PRIVATE, 1, VAL2(1), &q2, 7);
	e = errno;
	printf("FUTEX_CMP_REQUEUE, val3 7 but the word is 0: %s\n", result(r, e));
	CHECK(r == -1 && e == EAGAIN, "cmp_requeue mismatch: %s", result(r, e));

	struct waiter w[3];
	for (int i = 0; i < 3; i++) {
		w[i] = (struct waiter){ .addr = &q1, .op = FUTEX_WAIT_PRIVATE, .val = 0 };
		start(&w[i]);
	}
	/* Move them all (nr_wake 0) from q1 to q2, as they arrive. */
	long moved = 0;
	int attempts = 0, bad = 0;
	while (moved < 3 && attempts++ < MAX_ATTEMPTS) {
		r = futex(&q1, FUTEX_CMP_REQUEUE_PRIVATE, 0, VAL2(INT_MAX), &q2, 0);
		if (r < 0)
			bad = 1;
		else
			moved += r;
		if (moved < 3)
			pause_1ms();
	}
	printf("FUTEX_CMP_REQUEUE nr_wake 0: moved %ld waiters from q1 to q2 in all\n", moved);
	CHECK(moved == 3 && !bad, "requeue: moved %ld%s", moved, bad ? " (a call failed)" : "");
	if (moved != 3)
		exit(1);
	for (int i = 0; i < 3; i++)
		CHECK(!atomic_load(&w[i].finished), "requeue: waiter %d woke", i);

	r = futex(&q1, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	printf("FUTEX_WAKE q1 after the requeue: %ld\n", r);
	CHECK(r == 0, "wake q1 after requeue: %ld", r);

	r = futex(&q2, FUTEX_CMP_REQUEUE_PRIVATE, 1, VAL2(1), &q1, 0);
	printf("FUTEX_CMP_REQUEUE q2 -> q1, nr_wake 1 nr_requeue 1: %s\n", result(r, errno));
	CHECK(r == 2, "cmp_requeue 1+1: %ld", r);

	r = futex(&q2, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	printf("FUTEX_WAKE q2: %ld\n", r);
	CHECK(r == 1, "wake q2: %ld", r);
	r = futex(&q1, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	printf("FUTEX_WAKE q1: %ld\n", r);
	CHECK(r == 1, "wake q1: %ld", r);
	for (int i = 0; i < 3; i++) {
		pthread_join(w[i].th, NULL);
		CHECK(w[i].ret == 0, "requeued waiter %d: %s", i, result(w[i].ret, w[i].err));
	}
	printf("the 3 requeued waiters' FUTEX_WAIT returned 0\n");
}

static void wake_op_tests(void)
{
	static const struct {
		const char *name;
		int op, oparg;
		uint32_t before, after;
	} ops[] = {
		{ "ADD 5", FUTEX_OP_ADD, 5, 0, 5 },
		{ "ADD 1<<2 (OPARG_SHIFT)", FUTEX_OP_ADD | FUTEX_OP_OPARG_SHIFT, 2, 5, 9 },
		{ "OR 0x30", FUTEX_OP_OR, 0x30, 9, 0x39 },
		{ "ANDN 0x8", FUTEX_OP_ANDN, 0x8, 0x39, 0x31 },
		{ "XOR 0xff", FUTEX_OP_XOR, 0xff, 0x31, 0xce },
		{ "SET 1", FUTEX_OP_SET, 1, 0xce, 1 },
	};
	long r;
	f1 = 0;
	g1 = 0;
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		uint32_t before = g1;
		r = futex(&f1, FUTEX_WAKE_OP_PRIVATE, 1, VAL2(1), &g1,
			  wake_op(ops[i].op, ops[i].oparg, FUTEX_OP_CMP_GT, 0));
		printf("FUTEX_WAKE_OP %s, nobody waiting: %s, uaddr2 %#x -> %#x\n", ops[i].name, result(r, errno),
		       before, g1);
		CHECK(r == 0 && before == ops[i].before && g1 == ops[i].after, "wake_op %s: r %ld, %#x -> %#x",
		      ops[i].name, r, before, g1);
	}

	/* a waiter on uaddr (f1): woken by nr_wake 1; the comparison is false */
	struct waiter a = { .addr = &f1, .op = FUTEX_WAIT_PRIVATE, .val = 0 };
	start(&a);
	r = WAKE_UNTIL_NONZERO("FUTEX_WAKE_OP on uaddr",
			       futex(&f1, FUTEX_WAKE_OP_PRIVATE, 1, VAL2(1), &g1,
				     wake_op(FUTEX_OP_SET, 1, FUTEX_OP_CMP_NE, 1)));
	printf("FUTEX_WAKE_OP, a waiter on uaddr: woke %ld\n", r);
	CHECK(r == 1, "wake_op uaddr: %ld", r);
	finish(&a, "the uaddr waiter", 0, 0);

	/* a waiter on uaddr2 (g1 == 1): a false comparison wakes nobody ... */
	struct waiter b = { .addr = &g1, .op = FUTEX_WAIT_BITSET_PRIVATE, .val = 1, .timeout = 200 * MS,
			    .clk = CLOCK_MONOTONIC, .bitset = FUTEX_BITSET_MATCH_ANY };
	start(&b);
	long woken = 0, calls = 0;
	while (!atomic_load(&b.finished)) {
		r = futex(&f1, FUTEX_WAKE_OP_PRIVATE, 0, VAL2(1), &g1, wake_op(FUTEX_OP_SET, 1, FUTEX_OP_CMP_NE, 1));
		if (r != 0)
			woken += r;
		calls++;
		pause_1ms();
	}
	printf("FUTEX_WAKE_OP, comparison false (1 != 1): woke %ld\n", woken);
	CHECK(woken == 0 && calls > 0, "wake_op false comparison woke %ld", woken);
	finish(&b, "the uaddr2 waiter (200 ms deadline)", -1, ETIMEDOUT);

	/* ... and a true one wakes it */
	struct waiter c = { .addr = &g1, .op = FUTEX_WAIT_PRIVATE, .val = 1 };
	start(&c);
	r = WAKE_UNTIL_NONZERO("FUTEX_WAKE_OP on uaddr2",
			       futex(&f1, FUTEX_WAKE_OP_PRIVATE, 0, VAL2(1), &g1,
				     wake_op(FUTEX_OP_SET, 1, FUTEX_OP_CMP_EQ, 1)));
	printf("FUTEX_WAKE_OP, comparison true (1 == 1), a waiter on uaddr2: woke %ld\n", r);
	CHECK(r == 1, "wake_op uaddr2: %ld", r);
	finish(&c, "the uaddr2 waiter", 0, 0);
	printf("uaddr2 is %u\n", g1);
	CHECK(g1 == 1, "uaddr2 %u", g1);
}

int main(void)
{
	wait_tests();
	wake_tests();
	requeue_tests();
	wake_op_tests();
	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
