/* slow_copy.so: an LD_PRELOAD shim for dsim itself (never for a machine's
 * program) that makes its durable copies slow, as a copy of a file of many
 * gigabytes is: each reflink (FICLONE) made, or first copy_file_range into
 * a file, takes SLOW_COPY_MS milliseconds more and touches SLOW_COPY_MARK.
 * Build: cc -shared -fPIC -o slow_copy.so slow_copy.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static void slow_down(void)
{
	const char *ms = getenv("SLOW_COPY_MS"), *mark = getenv("SLOW_COPY_MARK");
	if (!ms) return;
	long n = atol(ms);
	struct timespec ts = { n / 1000, (n % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) != 0) {}
	if (mark) close(open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	if (!real) real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	int r = real(fd, req, arg);
	if (req == FICLONE && r == 0) slow_down();     /* a clone made: the copy itself */
	return r;
}

ssize_t copy_file_range(int in, off64_t *in_off, int out, off64_t *out_off, size_t len, unsigned flags)
{
	static ssize_t (*real)(int, off64_t *, int, off64_t *, size_t, unsigned);
	if (!real) real = (ssize_t (*)(int, off64_t *, int, off64_t *, size_t, unsigned))dlsym(RTLD_NEXT, "copy_file_range");
	if (lseek(out, 0, SEEK_CUR) == 0) slow_down();     /* once per file */
	return real(in, in_off, out, out_off, len, flags);
}
