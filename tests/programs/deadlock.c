/* deadlock: two threads take two mutexes in opposite orders.
 *
 * Usage: deadlock [--ordered]
 *
 * Locker A takes m1, calls getppid(), then takes m2; locker B takes m2,
 * calls getppid(), then takes m1. The syscall between the two locks is a
 * point where dsim may switch threads: if A holds m1 and B holds m2 at the
 * same time, both wait forever in futex() (and main waits forever in
 * pthread_join), which dsim must report as a deadlock. On other schedules
 * both finish. With --ordered both lockers take m1 before m2, so there is no
 * deadlock on any schedule.
 *
 * Each locker first writes "locker X tid N" (its thread id, in one write(),
 * so the lines never interleave; their order depends on the schedule). When
 * both are done main prints "both threads done" and exits 0. Exit 2 on a
 * usage or setup error. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static int ordered;

struct locker {
	const char *name;
	pthread_mutex_t *first, *second;
};

static void *locker(void *arg)
{
	const struct locker *l = arg;
	char buf[64];
	int n = snprintf(buf, sizeof buf, "locker %s tid %ld\n", l->name, (long)syscall(SYS_gettid));
	if (write(1, buf, (size_t)n) != n)
		return (void *)1;
	pthread_mutex_lock(l->first);
	getppid();   /* a syscall while holding one lock: a possible switch */
	pthread_mutex_lock(l->second);
	pthread_mutex_unlock(l->second);
	pthread_mutex_unlock(l->first);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--ordered") == 0)
		ordered = 1;
	else if (argc != 1) {
		fprintf(stderr, "usage: deadlock [--ordered]\n");
		return 2;
	}
	struct locker a = { "A", &m1, &m2 };
	struct locker b = { "B", ordered ? &m1 : &m2, ordered ? &m2 : &m1 };
	pthread_t ta, tb;
	int e = pthread_create(&ta, NULL, locker, &a);
	if (!e)
		e = pthread_create(&tb, NULL, locker, &b);
	if (e) {
		fprintf(stderr, "deadlock: pthread_create: %s\n", strerror(e));
		return 2;
	}
	void *ra, *rb;
	pthread_join(ta, &ra);
	pthread_join(tb, &rb);
	if (ra || rb) {
		fprintf(stderr, "deadlock: a locker could not write\n");
		return 2;
	}
	printf("both threads done\n");
	return 0;
}
