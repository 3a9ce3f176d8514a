/* counter: the flagship example of dsim -- a lost update that only some
 * schedules hit.
 *
 * Two threads each add 1 to a shared counter 50 times. Before each update a
 * thread does some work (five system calls: here getppid() stands in for
 * real I/O), then updates the counter, not atomically:
 *
 *     local = counter;                       read
 *     if ((local + 1) % 50 == 0)
 *         print "progress: local+1";         a system call (to stderr), but
 *                                            only on every 50th update
 *     counter = local + 1;                   write
 *
 * Under dsim only one thread runs at a time and every system call is a
 * point where the scheduler, drawing from the seed, may hand the CPU to
 * another thread. The read-modify-write holds a system call only while it
 * prints a progress line (twice per run); an update is lost only if, right
 * then, the other thread runs through the rest of its work and reads the
 * counter before this one writes it back. Most seeds never do that; some
 * do, and a seed that does loses its update every time it is replayed.
 * Natively the same holds, with the host's timing in place of the seed:
 * the failure comes and goes, and cannot be brought back.
 *
 * After joining both threads, prints "counter = N (expected 100)" and exits
 * 1 if N != 100 (0 otherwise). On a mismatch it also says so on stderr, so
 * that dsim's failure report (which quotes the last lines of each machine's
 * stderr) shows it, after the progress lines: a lost update shows as one
 * progress line printed twice.
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
#define ITERATIONS 50
#define WORK 5          /* system calls of work before each update */
#define REPORT_EVERY 50

static atomic_long counter;

static void report_progress(long n)
{
	char line[64];
	int len = snprintf(line, sizeof line, "progress: %ld\n", n);
	if (write(STDERR_FILENO, line, (size_t)len) < 0)
		perror("counter: write");
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS; i++) {
		for (int w = 0; w < WORK; w++)
			getppid();      /* work: the other thread may run here (harmless) */
		long local = atomic_load_explicit(&counter, memory_order_relaxed);
		if ((local + 1) % REPORT_EVERY == 0)
			report_progress(local + 1);     /* the window: and here (the bug) */
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
		fprintf(stderr, "counter: lost %ld update%s: counter = %ld (expected %ld)\n",
		        expected - n, expected - n == 1 ? "" : "s", n, expected);
		return 1;
	}
	return 0;
}
