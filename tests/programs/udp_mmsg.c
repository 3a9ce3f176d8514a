/* udp_mmsg selftest: sendmmsg and recvmmsg on UDP over 127.0.0.1. Five
 * datagrams in one sendmmsg, each to its own address; recvmmsg with
 * MSG_WAITFORONE takes them all with their source; a datagram longer than
 * its buffer comes back cut, with MSG_TRUNC; MSG_DONTWAIT on an empty socket
 * gives EAGAIN; a blocking recvmmsg for two waits for both, sent by a child
 * 200 ms apart. Prints one line per check, then "ok". */
#include "netcheck.h"
#include <sys/wait.h>

static int bound_udp(struct sockaddr_in *me)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof *me;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || getsockname(fd, (struct sockaddr *)me, &len))
		die("udp socket");
	return fd;
}

int main(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "selftest")) {
		fprintf(stderr, "usage: udp_mmsg selftest\n");
		return 2;
	}
	require_lo_only();
	struct sockaddr_in aa, ba;
	int a = bound_udp(&aa), b = bound_udp(&ba);

	struct mmsghdr out[5];
	struct iovec oiov[5];
	char text[5][16];
	memset(out, 0, sizeof out);
	for (int i = 0; i < 5; i++) {
		int n = snprintf(text[i], sizeof text[i], "message %d", i);
		oiov[i] = (struct iovec){ text[i], (size_t)n };
		out[i].msg_hdr = (struct msghdr){ .msg_name = &ba, .msg_namelen = sizeof ba, .msg_iov = &oiov[i], .msg_iovlen = 1 };
	}
	int sent = sendmmsg(a, out, 5, 0);
	CHECK(sent == 5, "sendmmsg: %d %s", sent, errname(errno));
	CHECK(out[3].msg_len == 9, "msg_len %u", out[3].msg_len);
	printf("sendmmsg: %d datagrams\n", sent);
	sleep_ms(100);

	struct mmsghdr in[8];
	struct iovec iiov[8];
	char buf[8][64];
	struct sockaddr_in from[8];
	memset(in, 0, sizeof in);
	for (int i = 0; i < 8; i++) {
		iiov[i] = (struct iovec){ buf[i], sizeof buf[i] };
		in[i].msg_hdr = (struct msghdr){ .msg_name = &from[i], .msg_namelen = sizeof from[i], .msg_iov = &iiov[i], .msg_iovlen = 1 };
	}
	int got = recvmmsg(b, in, 8, MSG_WAITFORONE, NULL);
	CHECK(got == 5, "recvmmsg: %d %s", got, errname(errno));
	for (int i = 0; i < got && i < 5; i++) {
		CHECK(in[i].msg_len == 9 && !memcmp(buf[i], text[i], 9), "message %d: %.*s", i, (int)in[i].msg_len, buf[i]);
		CHECK(from[i].sin_port == aa.sin_port && in[i].msg_hdr.msg_namelen == sizeof from[i], "source of %d", i);
	}
	printf("recvmmsg: %d datagrams, in order, with their source\n", got);

	got = recvmmsg(b, in, 8, MSG_DONTWAIT, NULL);
	CHECK(got == -1 && errno == EAGAIN, "empty: %d %s", got, errname(errno));
	printf("recvmmsg on an empty socket: %s\n", got < 0 ? errname(errno) : "data");

	char big[100];
	memset(big, 'x', sizeof big);
	CHECK(sendto(a, big, sizeof big, 0, (struct sockaddr *)&ba, sizeof ba) == 100, "sendto");
	sleep_ms(100);
	iiov[0].iov_len = 10;
	got = recvmmsg(b, in, 1, 0, NULL);
	CHECK(got == 1 && in[0].msg_len == 10 && (in[0].msg_hdr.msg_flags & MSG_TRUNC), "cut: %d %u %x", got,
	      in[0].msg_len, in[0].msg_hdr.msg_flags);
	printf("a long datagram: cut, MSG_TRUNC\n");
	iiov[0].iov_len = sizeof buf[0];

	pid_t child = fork();
	if (child == 0) {
		for (int i = 0; i < 2; i++) {
			sleep_ms(200);
			sendto(a, "late", 4, 0, (struct sockaddr *)&ba, sizeof ba);
		}
		_exit(0);
	}
	got = recvmmsg(b, in, 2, 0, NULL);
	CHECK(got == 2 && in[1].msg_len == 4, "blocking for two: %d", got);
	waitpid(child, NULL, 0);
	printf("a blocking recvmmsg for two: %d\n", got);
	return finish();
}
