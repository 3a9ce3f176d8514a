/* fsync_then_compute: writes and fsyncs a small file, then computes for
 * about a second without a system call (natively well under a second on
 * these hosts), then prints "done". Under dsim the step that holds the
 * fsync (of a file copied whole) also holds the computation: the spin watchdog must count the
 * computation, not the time dsim spent on the fsync itself.
 *
 *   fsync_then_compute PATH [ITERATIONS] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) return 2;
	long n = argc > 2 ? atol(argv[2]) : 1000000000L;
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	/* The truncation makes dsim copy the whole file at the fsync (a
	 * write alone is copied by its range, without copy_file_range). */
	if (fd < 0 || write(fd, "durable\n", 8) != 8 || ftruncate(fd, 8) != 0 || fsync(fd) != 0) return 1;
	volatile unsigned long x = 0;
	for (long i = 0; i < n; i++) x += (unsigned long)i;
	printf("done\n");
	return 0;
}
