/* What small test programs without a network share: die() on a failed
 * call (its errno printed, exit 1) and a sleep in milliseconds that goes
 * on after a signal. */
#ifndef TESTS_PROGRAMS_PLAINPROG_H
#define TESTS_PROGRAMS_PLAINPROG_H
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static __attribute__((unused)) void die(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	exit(1);
}

static __attribute__((unused)) void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}
#endif
