/* crash_segv: a thread that dereferences a NULL pointer after a few system
 * calls. Build it with -O0 -g, so the store really happens.
 *
 * The main thread prints "starting", starts a thread and joins it. The
 * thread makes a few system calls (getpid, getppid, a write of "thread
 * about to crash") and then stores through a NULL pointer: the process dies
 * by SIGSEGV (a shell reports status 139). The main thread never prints
 * "joined"; if it does, the program exits 1. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int *volatile target;   /* NULL; volatile so it is not folded */

__attribute__((noinline)) static void crash(void)
{
	*target = 42;   /* SIGSEGV */
}

static void *worker(void *arg)
{
	(void)arg;
	getpid();
	getppid();
	const char msg[] = "thread about to crash\n";
	if (write(1, msg, sizeof msg - 1) < 0)
		return NULL;
	crash();
	return NULL;
}

int main(void)
{
	printf("starting\n");
	fflush(stdout);
	pthread_t th;
	int e = pthread_create(&th, NULL, worker, NULL);
	if (e) {
		fprintf(stderr, "crash_segv: pthread_create: %s\n", strerror(e));
		return 2;
	}
	pthread_join(th, NULL);
	printf("joined\n");   /* not reached */
	return 1;
}
