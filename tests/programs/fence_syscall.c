/* fence_syscall: makes one system call dsim cannot make deterministic.
 *
 * call_unsupported() creates a System V message queue with a raw
 * syscall(SYS_msgget, IPC_PRIVATE, 0600) (msgrcv would sleep in the kernel).
 * msgget is not in dsim's table (syscalls/table.c), so under dsim the call is a fence: the
 * run stops and names the call, the machine, the thread and its stack, in
 * which call_unsupported() must appear. The function is noinline and does
 * work after the call, so it is a real frame on the stack, not a tail call.
 *
 * Natively the call succeeds: prints "before fence", then "queue created"
 * and exits 0. Exit 1 if msgget fails. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/syscall.h>

__attribute__((noinline)) static int call_unsupported(void)
{
	long id = syscall(SYS_msgget, IPC_PRIVATE, 0600);
	if (id < 0) {
		fprintf(stderr, "fence_syscall: msgget: %s\n", strerror(errno));
		return 1;
	}
	printf("queue created\n");
	fflush(stdout);
	syscall(SYS_msgctl, (int)id, IPC_RMID, NULL);
	return 0;
}

int main(void)
{
	printf("before fence\n");
	fflush(stdout);
	return call_unsupported();
}
