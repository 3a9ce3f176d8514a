/* unix_timeo [values]: receive and send timeouts on a machine's own unix
 * sockets (a stream socket pair and a datagram pair): set, read back, and
 * a read that times out (EAGAIN). The kernel keeps them in ticks of its
 * own: a 1.5 ms timeout reads back 4 ms at HZ 250 and 2 ms at HZ 1000, so
 * what is read back, and how long the read waits, is printed only with
 * "values" (under dsim: a machine's tick, HZ 250, on any host). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

static long elapsed_us(const struct timespec *a, const struct timespec *b)
{
	return (long)((b->tv_sec - a->tv_sec) * 1000000 + (b->tv_nsec - a->tv_nsec) / 1000);
}

int main(int argc, char **argv)
{
	int values = argc > 1 && !strcmp(argv[1], "values");
	for (int ty = 0; ty < 2; ty++) {
		int sv[2];
		if (socketpair(AF_UNIX, ty ? SOCK_DGRAM : SOCK_STREAM, 0, sv) != 0) {
			perror("socketpair");
			return 1;
		}
		struct timeval rcv = { 0, 1500 }, snd = { 2, 1 }, got[2], bad = { 0, 1000000 };
		socklen_t l0 = sizeof got[0], l1 = sizeof got[1];
		int r1 = setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &rcv, sizeof rcv);
		int r2 = setsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof snd);
		int r3 = setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &bad, sizeof bad);
		int e3 = errno;
		getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &got[0], &l0);
		getsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &got[1], &l1);
		printf("%s: set %d %d, out of range %d %s, read back lengths %u %u\n", ty ? "dgram" : "stream", r1, r2, r3,
		       r3 ? strerror(e3) : "", l0, l1);
		struct timespec a, b;
		char c;
		clock_gettime(CLOCK_MONOTONIC, &a);
		long n = recv(sv[0], &c, 1, 0);
		int e = errno;
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%s: recv %ld %s\n", ty ? "dgram" : "stream", n, n < 0 ? strerror(e) : "");
		if (values)
			printf("%s: SO_RCVTIMEO {%ld, %ld} SO_SNDTIMEO {%ld, %ld}, waited %ld us\n", ty ? "dgram" : "stream",
			       (long)got[0].tv_sec, (long)got[0].tv_usec, (long)got[1].tv_sec, (long)got[1].tv_usec,
			       elapsed_us(&a, &b));
	}
	printf("ok\n");
	return 0;
}
