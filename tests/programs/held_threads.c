/* held_threads: a deadlock with a thread that cannot be "blocked in" a
 * call. Natively each mode hangs for ever (never run it natively).
 *
 *   held_threads leader   the main thread exits (pthread_exit) while
 *                         another thread waits on a pipe no one writes
 *   held_threads vfork    a vfork child waits on such a pipe: its parent
 *                         is held in vfork */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static int fds[2];

static void *waiter(void *arg)
{
	char c;
	if (read(fds[0], &c, 1) < 0) {}
	return arg;
}

int main(int argc, char **argv)
{
	if (pipe(fds)) return 1;
	if (argc == 2 && !strcmp(argv[1], "leader")) {
		pthread_t t;
		pthread_create(&t, NULL, waiter, NULL);
		pthread_exit(NULL);
	}
	if (argc == 2 && !strcmp(argv[1], "vfork")) {
		if (vfork() == 0) {
			waiter(NULL);
			_exit(0);
		}
		return 0;
	}
	return 2;
}
