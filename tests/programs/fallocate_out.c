/* fallocate_out: tries to reserve a terabyte on its own standard output and
 * error, which under `dsim run` are files in the run directory, outside the
 * machine's disk; prints the result of each attempt on stdout, then a
 * fallocate of a file on the machine's disk (1 MiB, which works).
 *
 * Run it only where a terabyte cannot be had (a small tmpfs): then even a
 * fallocate that should have been refused only meets ENOSPC. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TIB (1LL << 40)

static const char *res(int r) { return r == 0 ? "ok" : strerrorname_np(errno); }

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *disk_file = argc > 1 ? argv[1] : "/root/reserved";
	printf("stdout KEEP_SIZE 1 TiB: %s\n", res(fallocate(1, FALLOC_FL_KEEP_SIZE, 0, TIB)));
	printf("stderr KEEP_SIZE 1 TiB: %s\n", res(fallocate(2, FALLOC_FL_KEEP_SIZE, 0, TIB)));
	printf("stdout 1 TiB: %s\n", res(fallocate(1, 0, 0, TIB)));
	printf("stdout len 0: %s\n", res(fallocate(1, 0, 0, 0)));
	int pr = posix_fallocate(1, 0, TIB);
	printf("stdout posix_fallocate: %s\n", pr ? strerrorname_np(pr) : "ok");
	/* The same file through a new open file description, without O_APPEND. */
	int fd = open("/proc/self/fd/1", O_WRONLY);
	printf("reopened stdout KEEP_SIZE 1 TiB: %s\n", fd < 0 ? strerrorname_np(errno) : res(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, TIB)));
	int ro = open("/proc/self/fd/1", O_RDONLY);
	printf("read-only stdout: %s\n", ro < 0 ? strerrorname_np(errno) : res(fallocate(ro, FALLOC_FL_KEEP_SIZE, 0, TIB)));
	struct stat st;
	fstat(1, &st);
	printf("stdout blocks below 1 MiB: %d\n", st.st_blocks * 512 < (1 << 20));
	int f = open(disk_file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	printf("disk file 1 MiB: %s\n", f < 0 ? strerrorname_np(errno) : res(fallocate(f, 0, 0, 1 << 20)));
	fstat(f, &st);
	printf("disk file size: %lld\n", (long long)st.st_size);
	return 0;
}
