/* join_many: 50 threads, each doing a few syscalls, joined by main.
 *
 * Thread i does getpid(), gettid(), getppid(), sched_yield() and a write() to
 * /dev/null, waits at a barrier with all the others (so all 50 are alive at
 * once), and returns i*i. Main joins them all in creation order and prints
 * the sum of the return values (sum of i*i for i < 50 = 40425), that every
 * return value was right, that all threads saw main's pid and that their 50
 * thread ids were distinct. The output is deterministic; exit 0 only if every
 * check passed, 2 on a setup error. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N 50

static pthread_barrier_t barrier;
static int devnull;
static pid_t tids[N], pids[N];

static void *worker(void *arg)
{
	long i = (long)(intptr_t)arg;
	pids[i] = getpid();
	tids[i] = (pid_t)syscall(SYS_gettid);
	getppid();
	sched_yield();
	char c = (char)i;
	if (write(devnull, &c, 1) != 1)
		return (void *)(intptr_t)-1;
	pthread_barrier_wait(&barrier);
	return (void *)(intptr_t)(i * i);
}

int main(void)
{
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0) {
		perror("join_many: /dev/null");
		return 2;
	}
	int e = pthread_barrier_init(&barrier, NULL, N);
	if (e) {
		fprintf(stderr, "join_many: pthread_barrier_init: %s\n", strerror(e));
		return 2;
	}
	pthread_t th[N];
	for (long i = 0; i < N; i++) {
		e = pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
		if (e) {
			fprintf(stderr, "join_many: pthread_create %ld: %s\n", i, strerror(e));
			return 2;
		}
	}
	long sum = 0, wrong = 0;
	for (long i = 0; i < N; i++) {
		void *ret;
		e = pthread_join(th[i], &ret);
		if (e) {
			fprintf(stderr, "join_many: pthread_join %ld: %s\n", i, strerror(e));
			return 2;
		}
		long v = (long)(intptr_t)ret;
		if (v != i * i) {
			printf("FAIL thread %ld returned %ld, expected %ld\n", i, v, i * i);
			wrong++;
		}
		sum += v;
	}
	pthread_barrier_destroy(&barrier);

	int failures = (int)wrong;
	printf("joined %d threads, sum of return values %ld\n", N, sum);
	if (sum != 40425) {
		printf("FAIL sum %ld, expected 40425\n", sum);
		failures++;
	}
	if (!wrong)
		printf("every thread returned i*i\n");

	pid_t me = getpid();
	int same_pid = 1, distinct = 1;
	for (int i = 0; i < N; i++) {
		if (pids[i] != me)
			same_pid = 0;
		if (tids[i] == me || tids[i] <= 0)
			distinct = 0;
		for (int j = 0; j < i; j++)
			if (tids[i] == tids[j])
				distinct = 0;
	}
	if (same_pid)
		printf("all threads saw the process id of main\n");
	else {
		printf("FAIL a thread saw another process id\n");
		failures++;
	}
	if (distinct)
		printf("%d distinct thread ids, none equal to the process id\n", N);
	else {
		printf("FAIL thread ids are not distinct\n");
		failures++;
	}
	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
