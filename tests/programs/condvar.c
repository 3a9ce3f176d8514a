/* condvar: condition variables.
 *
 * Usage: condvar [SCALE]   (0 < SCALE <= 1, default 1; multiplies the 2 s
 *                           timeouts, so that a native run is quick)
 *
 *  1. Producer/consumer over a bounded queue (capacity 4): two producers put
 *     the numbers 1..1000 (500 each), two consumers take them; they wait with
 *     pthread_cond_wait on "not full" / "not empty" and wake each other with
 *     pthread_cond_signal; at the end main sets "done" and broadcasts.
 *     Prints the totals, which do not depend on the schedule.
 *  2. pthread_cond_timedwait with a 2 s timeout that nobody signals must
 *     return ETIMEDOUT, having waited at least 2 s (and less than 3 s): on a
 *     default (CLOCK_REALTIME) condvar, on one whose condattr clock is
 *     CLOCK_MONOTONIC, and with pthread_cond_clockwait(CLOCK_MONOTONIC).
 *  3. A pthread_cond_timedwait with a long timeout (20 s) that another thread
 *     signals after a quarter of the 2 s returns 0 with the predicate set,
 *     before its deadline.
 *
 * Every line is deterministic (natively too, for any SCALE); the last is
 * "ok". Exit 0 only if every check passed; 2 on a usage or setup error. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "selfcheck.h"

#define NS 1000000000LL
#define CAP 4
#define PER_PRODUCER 500
#define NPROD 2
#define NCONS 2

static void need(int e, const char *what)
{
	if (e) {
		printf("FATAL %s: %s\n", what, strerror(e));
		exit(2);
	}
}

/* ---- 1. bounded queue ---- */

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static long queue[CAP];
static int qhead, qlen, qmax, done;
static long consumed_count[NCONS], consumed_sum[NCONS];

static void *producer(void *arg)
{
	long base = (long)(intptr_t)arg * PER_PRODUCER;
	for (long i = 1; i <= PER_PRODUCER; i++) {
		pthread_mutex_lock(&qlock);
		while (qlen == CAP)
			pthread_cond_wait(&not_full, &qlock);
		queue[(qhead + qlen) % CAP] = base + i;
		qlen++;
		if (qlen > qmax)
			qmax = qlen;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&qlock);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	int me = (int)(intptr_t)arg;
	for (;;) {
		pthread_mutex_lock(&qlock);
		while (qlen == 0 && !done)
			pthread_cond_wait(&not_empty, &qlock);
		if (qlen == 0) {   /* done, and nothing left */
			pthread_mutex_unlock(&qlock);
			return NULL;
		}
		long v = queue[qhead];
		qhead = (qhead + 1) % CAP;
		qlen--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&qlock);
		consumed_count[me]++;
		consumed_sum[me] += v;
	}
}

static void producer_consumer(void)
{
	pthread_t p[NPROD], c[NCONS];
	for (int i = 0; i < NCONS; i++)
		need(pthread_create(&c[i], NULL, consumer, (void *)(intptr_t)i), "pthread_create");
	for (int i = 0; i < NPROD; i++)
		need(pthread_create(&p[i], NULL, producer, (void *)(intptr_t)i), "pthread_create");
	for (int i = 0; i < NPROD; i++)
		pthread_join(p[i], NULL);
	pthread_mutex_lock(&qlock);
	done = 1;
	pthread_cond_broadcast(&not_empty);
	pthread_mutex_unlock(&qlock);
	for (int i = 0; i < NCONS; i++)
		pthread_join(c[i], NULL);

	long n = 0, sum = 0;
	for (int i = 0; i < NCONS; i++) {
		n += consumed_count[i];
		sum += consumed_sum[i];
	}
	long total = (long)NPROD * PER_PRODUCER;
	printf("queue: produced %ld consumed %ld sum %ld\n", total, n, sum);
	CHECK(n == total, "consumed %ld, expected %ld", n, total);
	CHECK(sum == total * (total + 1) / 2, "sum %ld, expected %ld", sum, total * (total + 1) / 2);
	CHECK(qlen == 0, "queue not empty at the end: %d", qlen);
	CHECK(qmax >= 1 && qmax <= CAP, "max queue length %d", qmax);
	printf("queue: max length within capacity %d\n", CAP);
}

/* ---- 2. timeouts ---- */

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / NS), (long)(ns % NS) };
	return ts;
}

enum how { TIMEDWAIT, CLOCKWAIT };

/* Waits on cv (whose clock is clk) for `timeout` ns with nobody signalling. */
static void expect_timeout(const char *name, pthread_cond_t *cv, clockid_t clk, enum how how,
			   int64_t timeout)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int never = 0, r = 0;
	int64_t t0 = now_ns(clk);
	struct timespec deadline = ns_to_ts(t0 + timeout);
	pthread_mutex_lock(&m);
	while (!never) {
		if (how == TIMEDWAIT)
			r = pthread_cond_timedwait(cv, &m, &deadline);
		else
			r = pthread_cond_clockwait(cv, &m, clk, &deadline);
		if (r != 0)
			break;
		/* r == 0: a spurious wakeup; wait again for the same deadline */
	}
	pthread_mutex_unlock(&m);
	int64_t waited = now_ns(clk) - t0;
	printf("%s: %s\n", name, r == ETIMEDOUT ? "ETIMEDOUT" : strerror(r));
	CHECK(r == ETIMEDOUT, "%s returned %d (%s)", name, r, strerror(r));
	CHECK(waited >= timeout, "%s: waited %lld ns, less than the timeout %lld ns", name,
	      (long long)waited, (long long)timeout);
	CHECK(waited < timeout + NS, "%s: waited %lld ns, a second more than the timeout %lld ns",
	      name, (long long)waited, (long long)timeout);
	printf("%s: waited at least the timeout, and less than a second more\n", name);
}

/* ---- 3. signalled before the deadline ---- */

static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sig_cv = PTHREAD_COND_INITIALIZER;
static int sig_flag;
static int64_t sig_delay;

static void *signaller(void *arg)
{
	(void)arg;
	struct timespec d = ns_to_ts(sig_delay);
	nanosleep(&d, NULL);
	pthread_mutex_lock(&sig_lock);
	sig_flag = 1;
	pthread_cond_signal(&sig_cv);
	pthread_mutex_unlock(&sig_lock);
	return NULL;
}

static void signalled_in_time(int64_t timeout)
{
	int64_t long_timeout = 10 * timeout;
	sig_delay = timeout / 4;
	pthread_t t;
	int r = 0;
	int64_t t0 = now_ns(CLOCK_REALTIME);
	struct timespec deadline = ns_to_ts(t0 + long_timeout);
	pthread_mutex_lock(&sig_lock);
	need(pthread_create(&t, NULL, signaller, NULL), "pthread_create");
	while (!sig_flag) {
		r = pthread_cond_timedwait(&sig_cv, &sig_lock, &deadline);
		if (r != 0)
			break;
	}
	int flag = sig_flag;
	pthread_mutex_unlock(&sig_lock);
	pthread_join(t, NULL);
	int64_t waited = now_ns(CLOCK_REALTIME) - t0;
	printf("signalled timedwait: returned %s, predicate %s\n", r == 0 ? "0" : strerror(r),
	       flag ? "set" : "not set");
	CHECK(r == 0 && flag, "signalled timedwait: r %d flag %d", r, flag);
	CHECK(waited >= sig_delay && waited < long_timeout,
	      "signalled timedwait: waited %lld ns (signal after %lld, deadline %lld)",
	      (long long)waited, (long long)sig_delay, (long long)long_timeout);
	printf("signalled timedwait: woke after the signal, before the deadline\n");
}

int main(int argc, char **argv)
{
	double scale = 1.0;
	if (argc > 1) {
		char *end;
		scale = strtod(argv[1], &end);
		if (argc > 2 || *end || !(scale > 0 && scale <= 1)) {
			fprintf(stderr, "usage: condvar [SCALE (0 < SCALE <= 1)]\n");
			return 2;
		}
	}
	int64_t timeout = (int64_t)(2.0 * scale * 1e9 + 0.5);

	producer_consumer();

	pthread_cond_t rt_cv = PTHREAD_COND_INITIALIZER, mono_cv;
	pthread_condattr_t attr;
	need(pthread_condattr_init(&attr), "pthread_condattr_init");
	need(pthread_condattr_setclock(&attr, CLOCK_MONOTONIC), "pthread_condattr_setclock");
	need(pthread_cond_init(&mono_cv, &attr), "pthread_cond_init");
	pthread_condattr_destroy(&attr);
	expect_timeout("timedwait CLOCK_REALTIME", &rt_cv, CLOCK_REALTIME, TIMEDWAIT, timeout);
	expect_timeout("timedwait condattr CLOCK_MONOTONIC", &mono_cv, CLOCK_MONOTONIC, TIMEDWAIT, timeout);
	expect_timeout("clockwait CLOCK_MONOTONIC", &rt_cv, CLOCK_MONOTONIC, CLOCKWAIT, timeout);
	pthread_cond_destroy(&mono_cv);

	signalled_in_time(timeout);

	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
