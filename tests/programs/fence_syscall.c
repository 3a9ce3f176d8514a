/* fence_syscall: makes one system call dsim cannot make deterministic.
 *
 * call_unsupported() creates a POSIX timer with a raw
 * syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, &tid). timer_create is not
 * in dsim's table (syscalls/table.c), so under dsim the call is a fence: the
 * run stops and names the call, the machine, the thread and its stack, in
 * which call_unsupported() must appear. The function is noinline and does
 * work after the call, so it is a real frame on the stack, not a tail call.
 *
 * Natively the call succeeds: prints "before fence", then "timer created"
 * and exits 0. Exit 1 if timer_create fails. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

__attribute__((noinline)) static int call_unsupported(void)
{
	int tid = -1;   /* the kernel's timer_t is an int */
	long r = syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, &tid);
	if (r != 0) {
		fprintf(stderr, "fence_syscall: timer_create: %s\n", strerror(errno));
		return 1;
	}
	printf("timer created\n");
	fflush(stdout);
	syscall(SYS_timer_delete, tid);
	return 0;
}

int main(void)
{
	printf("before fence\n");
	fflush(stdout);
	return call_unsupported();
}
