/* warm_phases: two threads, each printing a line every 100 ms for 2 s of
 * (virtual) time: which thread, the time, and random bytes. Under dsim the
 * order of the two lines of a round comes from the scheduler and the bytes
 * from the machine's entropy: with a warm start at 1 s, every seed prints
 * the same first second and its own second one. Ends in "ok". */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 20

static struct timespec start;

static void *run(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < ROUNDS; i++) {
		unsigned char b[4];
		if (getrandom(b, sizeof b, 0) != sizeof b)
			return (void *)1;
		char line[80];
		int n = snprintf(line, sizeof line, "round %02d thread %ld %02x%02x%02x%02x\n", i, id, b[0], b[1], b[2], b[3]);
		if (write(1, line, (size_t)n) != n)
			return (void *)1;
		/* Sleep to the next round's start: both threads wake together. */
		struct timespec due = start;
		due.tv_sec += (i + 1) / 10;
		due.tv_nsec += (i + 1) % 10 * 100000000L;
		if (due.tv_nsec >= 1000000000L) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000L;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
	}
	return NULL;
}

int main(void)
{
	clock_gettime(CLOCK_MONOTONIC, &start);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, run, (void *)i) != 0)
			return 1;
	void *r0, *r1;
	pthread_join(t[0], &r0);
	pthread_join(t[1], &r1);
	if (r0 || r1)
		return 1;
	printf("ok\n");
	return 0;
}
