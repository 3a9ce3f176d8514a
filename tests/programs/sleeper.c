/* sleeper: three long sleeps, measured on CLOCK_MONOTONIC and CLOCK_REALTIME.
 *
 * Usage: sleeper [SCALE]   (0 < SCALE <= 1, default 1)
 *
 * With SCALE 1 it does sleep(100), nanosleep() for 100 s and
 * poll(NULL, 0, 100000): 300 s in all. Under dsim that is virtual time, so
 * it takes moments of real time. Natively, pass a SCALE to shrink every sleep
 * (0.001: 0.3 s in all); sleep() takes whole seconds only, so when SCALE is
 * not 1 the first sleep is a nanosleep() of 100 * SCALE s instead.
 *
 * Prints the total it asked for, then the elapsed time on each clock in whole
 * seconds (with SCALE 1: "monotonic elapsed 300 s", "realtime elapsed 300 s"),
 * then "ok". Exit 0 only if every call succeeded and both clocks advanced by
 * at least the total and by less than the total plus one second; 1
 * otherwise, 2 on a usage error. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NS 1000000000LL

static int failures;

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	if (clock_gettime(clk, &ts) != 0) {
		printf("FAIL clock_gettime(%d): %s\n", (int)clk, strerror(errno));
		exit(1);
	}
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static void check_elapsed(const char *name, int64_t elapsed, int64_t total)
{
	printf("%s elapsed %lld s\n", name, (long long)(elapsed / NS));
	if (elapsed < total || elapsed >= total + NS) {
		printf("FAIL %s: elapsed %lld ns, expected [%lld, %lld)\n", name,
		       (long long)elapsed, (long long)total, (long long)(total + NS));
		failures++;
	}
}

int main(int argc, char **argv)
{
	double scale = 1.0;
	if (argc > 1) {
		char *end;
		scale = strtod(argv[1], &end);
		if (*end || !(scale > 0 && scale <= 1)) {
			fprintf(stderr, "usage: sleeper [SCALE (0 < SCALE <= 1)]\n");
			return 2;
		}
	}
	if (argc > 2) {
		fprintf(stderr, "usage: sleeper [SCALE]\n");
		return 2;
	}
	int64_t each = (int64_t)(100.0 * scale * 1e9 + 0.5);   /* ns per sleep */
	int64_t total = 3 * each;
	printf("total sleep %.3f s\n", (double)total / 1e9);

	int64_t mono0 = now_ns(CLOCK_MONOTONIC), real0 = now_ns(CLOCK_REALTIME);

	/* 1. sleep() (whole seconds only; a nanosleep when scaled) */
	if (scale == 1.0) {
		unsigned left = sleep(100);
		if (left != 0) {
			printf("FAIL sleep(100) returned %u\n", left);
			failures++;
		}
	} else {
		struct timespec ts = { each / NS, each % NS };
		if (nanosleep(&ts, NULL) != 0) {
			printf("FAIL nanosleep (for sleep): %s\n", strerror(errno));
			failures++;
		}
	}

	/* 2. nanosleep() */
	struct timespec req = { each / NS, each % NS }, rem = { 0, 0 };
	if (nanosleep(&req, &rem) != 0) {
		printf("FAIL nanosleep: %s\n", strerror(errno));
		failures++;
	}

	/* 3. poll() with no fds and a timeout in milliseconds */
	int r = poll(NULL, 0, (int)(each / 1000000));
	if (r != 0) {
		printf("FAIL poll(NULL, 0, %lld) returned %d: %s\n", (long long)(each / 1000000), r,
		       r < 0 ? strerror(errno) : "not a timeout");
		failures++;
	}

	int64_t mono1 = now_ns(CLOCK_MONOTONIC), real1 = now_ns(CLOCK_REALTIME);
	check_elapsed("monotonic", mono1 - mono0, total);
	check_elapsed("realtime", real1 - real0, total);

	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
