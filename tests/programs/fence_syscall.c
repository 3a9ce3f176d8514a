/* fence_syscall: makes one system call dsim cannot make deterministic.
 *
 * call_unsupported() moves the process into a new user namespace with a raw
 * syscall(SYS_unshare, CLONE_NEWUSER): nested namespaces are outside what
 * dsim simulates. unshare is not in dsim's table (syscalls/table.c), so
 * under dsim the call is a fence: the
 * run stops and names the call, the machine, the thread and its stack, in
 * which call_unsupported() must appear. The function is noinline and does
 * work after the call, so it is a real frame on the stack, not a tail call.
 *
 * Natively the call succeeds (unprivileged, too): prints "before fence",
 * then "namespace made" and exits 0. Exit 1 if unshare fails. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/syscall.h>

__attribute__((noinline)) static int call_unsupported(void)
{
	long r = syscall(SYS_unshare, CLONE_NEWUSER);
	if (r < 0) {
		fprintf(stderr, "fence_syscall: unshare: %s\n", strerror(errno));
		return 1;
	}
	printf("namespace made\n");
	fflush(stdout);
	return 0;
}

int main(void)
{
	printf("before fence\n");
	fflush(stdout);
	return call_unsupported();
}
