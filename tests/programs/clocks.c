/* clocks: every clock id, read the way programs read it.
 *
 * Usage: clocks [--print-epoch]
 *
 * For each of REALTIME, MONOTONIC, PROCESS_CPUTIME_ID, THREAD_CPUTIME_ID,
 * MONOTONIC_RAW, REALTIME_COARSE, MONOTONIC_COARSE, BOOTTIME and TAI:
 *   - clock_gettime succeeds and never goes backwards over 1000 reads, with
 *     tv_nsec always in [0, 1e9);
 *   - clock_getres succeeds with a resolution in (0, 1 s].
 * Then gettimeofday() and time() agree with CLOCK_REALTIME within a second,
 * and an invalid clock id (1000) gives EINVAL from clock_gettime and
 * clock_getres.
 *
 * Prints one "ok ..." line per passed check (deterministic natively) and a
 * "FAIL ..." line per failed one; exits 0 only if nothing failed. With
 * --print-epoch, the first line is "realtime_seconds N": CLOCK_REALTIME's
 * seconds when main started (under dsim: the fixed virtual epoch). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define NS 1000000000LL
#define READS 1000
#define BAD_CLOCK ((clockid_t)1000)

static int failures;

__attribute__((format(printf, 2, 3)))
static void fail(const char *name, const char *fmt, ...)
{
	va_list ap;
	failures++;
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const struct {
	clockid_t id;
	const char *name;
} clocks[] = {
	{ CLOCK_REALTIME, "CLOCK_REALTIME" },
	{ CLOCK_MONOTONIC, "CLOCK_MONOTONIC" },
	{ CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID" },
	{ CLOCK_THREAD_CPUTIME_ID, "CLOCK_THREAD_CPUTIME_ID" },
	{ CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW" },
	{ CLOCK_REALTIME_COARSE, "CLOCK_REALTIME_COARSE" },
	{ CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE" },
	{ CLOCK_BOOTTIME, "CLOCK_BOOTTIME" },
	{ CLOCK_TAI, "CLOCK_TAI" },
};

static void check_clock(clockid_t id, const char *name)
{
	struct timespec ts;
	int64_t prev = INT64_MIN;
	int bad = 0;
	for (int i = 0; i < READS && !bad; i++) {
		if (clock_gettime(id, &ts) != 0) {
			fail(name, "clock_gettime failed at read %d: %s", i, strerror(errno));
			bad = 1;
			break;
		}
		if (ts.tv_nsec < 0 || ts.tv_nsec >= NS) {
			fail(name, "tv_nsec %ld at read %d", (long)ts.tv_nsec, i);
			bad = 1;
			break;
		}
		int64_t t = (int64_t)ts.tv_sec * NS + ts.tv_nsec;
		if (t < prev) {
			fail(name, "went backwards by %lld ns at read %d", (long long)(prev - t), i);
			bad = 1;
		}
		prev = t;
	}
	if (!bad)
		printf("ok %s: clock_gettime never went backwards over %d reads\n", name, READS);

	struct timespec res = { -1, -1 };
	if (clock_getres(id, &res) != 0)
		fail(name, "clock_getres failed: %s", strerror(errno));
	else if (res.tv_sec < 0 || res.tv_nsec < 0 || res.tv_nsec >= NS ||
		 (res.tv_sec == 0 && res.tv_nsec == 0) || (res.tv_sec >= 1 && !(res.tv_sec == 1 && res.tv_nsec == 0)))
		fail(name, "clock_getres gave %lld s %ld ns", (long long)res.tv_sec, (long)res.tv_nsec);
	else
		printf("ok %s: clock_getres gave a resolution in (0, 1 s]\n", name);
}

int main(int argc, char **argv)
{
	int print_epoch = 0;
	if (argc == 2 && strcmp(argv[1], "--print-epoch") == 0)
		print_epoch = 1;
	else if (argc != 1) {
		fprintf(stderr, "usage: clocks [--print-epoch]\n");
		return 2;
	}
	if (print_epoch) {
		struct timespec ts;
		if (clock_gettime(CLOCK_REALTIME, &ts) != 0) {
			printf("FAIL clock_gettime(CLOCK_REALTIME): %s\n", strerror(errno));
			return 1;
		}
		printf("realtime_seconds %lld\n", (long long)ts.tv_sec);
	}

	for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++)
		check_clock(clocks[i].id, clocks[i].name);

	/* gettimeofday and time against CLOCK_REALTIME */
	struct timespec a, b;
	struct timeval tv;
	clock_gettime(CLOCK_REALTIME, &a);
	int g = gettimeofday(&tv, NULL);
	time_t tloc = 0;
	time_t t = time(&tloc);
	clock_gettime(CLOCK_REALTIME, &b);
	int64_t lo = (int64_t)a.tv_sec * NS + a.tv_nsec - NS, hi = (int64_t)b.tv_sec * NS + b.tv_nsec + NS;
	int64_t tv_ns = (int64_t)tv.tv_sec * NS + (int64_t)tv.tv_usec * 1000;
	if (g != 0)
		fail("gettimeofday", "failed: %s", strerror(errno));
	else if (tv.tv_usec < 0 || tv.tv_usec >= 1000000)
		fail("gettimeofday", "tv_usec %ld", (long)tv.tv_usec);
	else if (tv_ns < lo || tv_ns > hi)
		fail("gettimeofday", "%lld ns is more than a second from CLOCK_REALTIME (%lld s)",
		     (long long)tv_ns, (long long)a.tv_sec);
	else
		printf("ok gettimeofday agrees with CLOCK_REALTIME within a second\n");
	/* time() is whole seconds: within one of CLOCK_REALTIME's seconds */
	if (t == (time_t)-1 || t != tloc)
		fail("time", "returned %lld, *tloc %lld", (long long)t, (long long)tloc);
	else if (t < a.tv_sec - 1 || t > b.tv_sec + 1)
		fail("time", "%lld is more than a second from CLOCK_REALTIME (%lld s)", (long long)t,
		     (long long)a.tv_sec);
	else
		printf("ok time agrees with CLOCK_REALTIME within a second\n");

	/* an invalid clock id */
	struct timespec ts;
	errno = 0;
	int r = clock_gettime(BAD_CLOCK, &ts);
	if (r != -1 || errno != EINVAL)
		fail("clock 1000", "clock_gettime returned %d, errno %d (expected -1 EINVAL)", r, errno);
	else
		printf("ok clock_gettime(1000) fails with EINVAL\n");
	errno = 0;
	r = clock_getres(BAD_CLOCK, &ts);
	if (r != -1 || errno != EINVAL)
		fail("clock 1000", "clock_getres returned %d, errno %d (expected -1 EINVAL)", r, errno);
	else
		printf("ok clock_getres(1000) fails with EINVAL\n");

	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	return 0;
}
