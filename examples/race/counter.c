/* counter: the flagship example of dsim -- a lost update.
 *
 * Two threads each add 1 to a shared counter 200 times, but not atomically:
 *
 *     local = counter;      read
 *     getppid();            a system call: under dsim, a point where the
 *                           scheduler may hand the CPU to the other thread
 *     counter = local + 1;  write
 *
 * If the other thread runs between the read and the write, its increments
 * are overwritten and lost. Natively, whether that happens depends on the
 * timing of the moment: one run loses a hundred updates, the next none, and
 * a failure cannot be brought back. Under dsim only one thread runs at a
 * time and every system call is a scheduling decision drawn from the seed,
 * so the outcome is a function of the seed: some seed loses updates, and
 * that seed loses exactly the same ones every time it is replayed.
 *
 * After joining both threads, prints "counter = N (expected 400)" and exits
 * 1 if N != 400 (0 otherwise). On a mismatch it also says so on stderr, so
 * that dsim's failure report (which quotes the last lines of each machine's
 * stderr) shows it.
 *
 * The counter is a relaxed atomic read and written separately: no data race
 * in the C sense (no undefined behaviour), and no atomic increment either.
 *
 * Build: cc -pthread -o counter counter.c */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define THREADS 2
#define ITERATIONS 200

static atomic_long counter;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS; i++) {
		long local = atomic_load_explicit(&counter, memory_order_relaxed);
		getppid();      /* the window: another thread may run here */
		atomic_store_explicit(&counter, local + 1, memory_order_relaxed);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	for (int i = 0; i < THREADS; i++) {
		int e = pthread_create(&th[i], NULL, worker, NULL);
		if (e) {
			fprintf(stderr, "counter: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);

	long n = atomic_load(&counter), expected = (long)THREADS * ITERATIONS;
	printf("counter = %ld (expected %ld)\n", n, expected);
	if (n != expected) {
		fprintf(stderr, "counter: lost %ld updates: counter = %ld (expected %ld)\n",
		        expected - n, n, expected);
		return 1;
	}
	return 0;
}
