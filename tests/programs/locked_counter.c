/* locked_counter: race_counter's read-syscall-write, under a mutex.
 *
 * Usage: locked_counter [THREADS [ITERS]]   (THREADS 1..4, default 3; ITERS
 * default 50). Each thread does ITERS times, holding one pthread mutex:
 *
 *     v = counter;  getppid();  counter = v + 1;
 *
 * A thread switch at getppid() cannot lose an update: the other threads
 * block on the mutex (a contended pthread mutex waits in futex()). Prints
 * "count C expected E" and "no lost updates"; the output is deterministic,
 * natively and on every dsim seed. Exit 0, or 1 if an update was lost (a
 * broken mutex, i.e. broken futex emulation), 2 on a usage or setup error. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static long iters = 50;

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&lock);
		long v = counter;
		getppid();   /* a syscall between the read and the write */
		counter = v + 1;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long nthreads = 3;
	if (argc > 1)
		nthreads = strtol(argv[1], NULL, 10);
	if (argc > 2)
		iters = strtol(argv[2], NULL, 10);
	if (argc > 3 || nthreads < 1 || nthreads > 4 || iters < 1 || iters > 1000000) {
		fprintf(stderr, "usage: locked_counter [THREADS(1-4) [ITERS]]\n");
		return 2;
	}

	pthread_t th[4];
	for (long i = 0; i < nthreads; i++) {
		int e = pthread_create(&th[i], NULL, worker, NULL);
		if (e) {
			fprintf(stderr, "locked_counter: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	for (long i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);

	long expected = nthreads * iters;
	printf("count %ld expected %ld\n", counter, expected);
	if (counter != expected) {
		printf("lost %ld updates\n", expected - counter);
		return 1;
	}
	printf("no lost updates\n");
	return 0;
}
