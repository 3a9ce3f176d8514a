/* random_paths: every way a program can read a random device, each line
 * "KEY COUNT HEX" (the call's result and the first 16 bytes it brought):
 * read, pread, readv, preadv, preadv2 of /dev/urandom and /dev/random;
 * sendfile into a pipe, a file, a socket and /dev/null; splice into a pipe
 * (with an offset, which does not move); sendfile into a full pipe that a
 * second thread drains (the call waits for room); /dev/hwrng; and the
 * paths Linux refuses: copy_file_range (EINVAL), mmap (ENODEV), splice into
 * a file (EINVAL), sendfile into an O_APPEND file (EINVAL) and into a full
 * non-blocking pipe (EAGAIN). Natively the bytes are the kernel's; under
 * dsim, the seed's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static void show(const char *key, long r, const unsigned char *b)
{
	printf("%s %ld ", key, r);
	if (r < 0)
		printf("%s", strerror(errno));
	else
		for (int i = 0; i < 16 && i < r; i++)
			printf("%02x", b[i]);
	putchar('\n');
}

static int must(int fd, const char *what)
{
	if (fd < 0) {
		fprintf(stderr, "random_paths: %s: %s\n", what, strerror(errno));
		exit(1);
	}
	return fd;
}

/* Reads what a pipe holds (at most len) into b. */
static void drain(int fd, unsigned char *b, size_t len)
{
	size_t got = 0;
	for (ssize_t r; got < len && (r = read(fd, b + got, len - got)) > 0;)
		got += (size_t)r;
}

static int fill_fd;

static void *filler_reader(void *arg)
{
	static unsigned char sink[1 << 16];
	(void)arg;
	usleep(20000);          /* the main thread waits in sendfile meanwhile */
	drain(fill_fd, sink, sizeof sink);
	return NULL;
}

int main(void)
{
	static unsigned char b[1 << 17];
	int u = must(open("/dev/urandom", O_RDONLY | O_CLOEXEC), "/dev/urandom");
	int rnd = must(open("/dev/random", O_RDONLY | O_CLOEXEC), "/dev/random");
	struct iovec iov[2] = { { b, 8 }, { b + 8, 8 } };
	show("read", read(u, b, 16), b);
	show("read_random", read(rnd, b, 16), b);
	show("pread", pread(u, b, 16, 1000), b);
	show("readv", readv(u, iov, 2), b);
	show("preadv", preadv(u, iov, 2, 7), b);
	show("preadv2", preadv2(u, iov, 2, -1, 0), b);

	int p[2];
	must(pipe2(p, O_CLOEXEC), "pipe");
	long r = sendfile(p[1], u, NULL, 1 << 20);     /* an empty pipe takes 64 KiB */
	drain(p[0], b, r > 0 ? (size_t)r : 0);
	show("sendfile_pipe", r, b);
	r = splice(rnd, NULL, p[1], NULL, 100, 0);
	drain(p[0], b, r > 0 ? (size_t)r : 0);
	show("splice_pipe", r, b);
	loff_t off = 7;
	r = splice(u, &off, p[1], NULL, 100, 0);
	drain(p[0], b, r > 0 ? (size_t)r : 0);
	show("splice_offset", r, b);
	printf("splice_offset_after %lld\n", (long long)off);

	char path[] = "/tmp/random_paths.XXXXXX";
	int f = must(mkstemp(path), "mkstemp");
	unlink(path);
	off_t foff = 3;
	r = sendfile(f, u, &foff, 100000);
	show("sendfile_file", r, (pread(f, b, 16, 0), b));
	printf("sendfile_offset_after %lld\n", (long long)foff);

	int sv[2];
	must(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), "socketpair");
	r = sendfile(sv[0], u, NULL, 4096);
	drain(sv[1], b, r > 0 ? (size_t)r : 0);
	show("sendfile_socket", r, b);
	int null = must(open("/dev/null", O_WRONLY | O_CLOEXEC), "/dev/null");
	printf("sendfile_devnull %ld\n", (long)sendfile(null, u, NULL, 1 << 20));

	/* A full blocking pipe: sendfile waits until the reader makes room. */
	int q[2];
	must(pipe2(q, O_CLOEXEC), "pipe");
	fill_fd = q[0];
	memset(b, 0, 1 << 16);
	if (write(q[1], b, 1 << 16) != 1 << 16)
		return 1;
	pthread_t th;
	pthread_create(&th, NULL, filler_reader, NULL);
	r = sendfile(q[1], u, NULL, 4096);
	pthread_join(th, NULL);
	drain(q[0], b, r > 0 ? (size_t)r : 0);
	show("sendfile_full_pipe", r, b);

	int hw = open("/dev/hwrng", O_RDONLY | O_CLOEXEC);
	if (hw < 0)
		printf("hwrng error %s\n", strerror(errno));
	else
		show("hwrng", read(hw, b, 16), b);

	errno = 0;
	show("copy_file_range", copy_file_range(u, NULL, f, NULL, 100, 0), b);
	void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, u, 0);
	printf("mmap %s\n", m == MAP_FAILED ? strerror(errno) : "mapped");
	show("splice_file", splice(u, NULL, f, NULL, 100, 0), b);
	int app = must(open("/dev/null", O_WRONLY | O_APPEND | O_CLOEXEC), "/dev/null");
	show("sendfile_append", sendfile(app, u, NULL, 100), b);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	while (write(p[1], b, 4096) > 0)
		;
	show("sendfile_full_nonblock", sendfile(p[1], u, NULL, 100), b);
	show("splice_full_nonblock", splice(u, NULL, p[1], NULL, 100, SPLICE_F_NONBLOCK), b);
	return 0;
}
