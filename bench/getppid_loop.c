/* getppid_loop: calls getppid() N times and reports how long that took.
 *
 * Usage: getppid_loop [N]   (default 20000; N >= 0)
 *
 * Prints "getppid_loop: N calls, T ns, P ns per call", where T is measured
 * with clock_gettime(CLOCK_MONOTONIC) around the loop. Natively that is real
 * time; under dsim the clock is virtual (one quantum per step), so
 * bench/syscall_cost.sh times dsim runs from outside instead, as the
 * difference between N calls and 0 calls. Exit 2 on a usage error. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = 20000;
	if (argc > 1) {
		char *end;
		n = strtol(argv[1], &end, 10);
		if (*end || n < 0) {
			fprintf(stderr, "usage: getppid_loop [N]\n");
			return 2;
		}
	}
	if (argc > 2) {
		fprintf(stderr, "usage: getppid_loop [N]\n");
		return 2;
	}
	long long t0 = now_ns();
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);   /* the raw call: no libc caching, ever */
	long long t1 = now_ns();
	printf("getppid_loop: %ld calls, %lld ns, %.1f ns per call\n",
	       n, t1 - t0, n ? (double)(t1 - t0) / (double)n : 0.0);
	return 0;
}
