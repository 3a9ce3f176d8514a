/* race_counter: a lost-update race that only a thread switch inside the
 * read-modify-write can expose.
 *
 * Usage: race_counter [THREADS [ITERS]]   (THREADS 1..4, default 3; ITERS
 * default 50). Each thread does ITERS times:
 *
 *     v = counter;  getppid();  counter = v + 1;
 *
 * The load and the store are separate relaxed atomics (no undefined
 * behaviour, but no atomic increment either), and getppid() between them is
 * a syscall: under dsim, a point where another thread may be scheduled. If
 * that thread runs its own read-modify-write in between, an update is lost.
 *
 * Prints "count C expected E" and either "no lost updates" (exit 0) or
 * "lost N updates" (exit 1). With THREADS = 1 the output is deterministic
 * natively; with more threads it depends on the schedule (under dsim: on the
 * seed). Exit 2 on a usage or setup error. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_long counter;
static long iters = 50;

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; i < iters; i++) {
		long v = atomic_load_explicit(&counter, memory_order_relaxed);
		getppid();   /* a syscall between the read and the write */
		atomic_store_explicit(&counter, v + 1, memory_order_relaxed);
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
		fprintf(stderr, "usage: race_counter [THREADS(1-4) [ITERS]]\n");
		return 2;
	}

	pthread_t th[4];
	for (long i = 0; i < nthreads; i++) {
		int e = pthread_create(&th[i], NULL, worker, NULL);
		if (e) {
			fprintf(stderr, "race_counter: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	for (long i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);

	long count = atomic_load(&counter), expected = nthreads * iters;
	printf("count %ld expected %ld\n", count, expected);
	if (count != expected) {
		printf("lost %ld updates\n", expected - count);
		return 1;
	}
	printf("no lost updates\n");
	return 0;
}
