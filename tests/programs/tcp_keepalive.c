/* tcp_keepalive: TCP keepalive against a server machine that goes away.
 *
 *   tcp_keepalive server PORT [SEND_AT]  accepts one connection; sends
 *       "late" SEND_AT seconds after the start (never if not given), then
 *       waits.
 *   tcp_keepalive client HOST PORT [ka]  connects, sets SO_KEEPALIVE with
 *       TCP_KEEPIDLE 2, TCP_KEEPINTVL 1, TCP_KEEPCNT 3 when asked, and
 *       waits in recv; prints what the recv gave (data, EOF or the error)
 *       and the whole second of the clock it came at.
 *
 * With keepalive, a client whose server machine is down gives up with
 * ETIMEDOUT 2 s after it last heard from it plus 3 unanswered probes a
 * second apart; one whose server machine rebooted meets a reset
 * (ECONNRESET) at the first probe; one whose server is alive keeps the
 * connection and gets the data when it comes. Without keepalive, a client
 * waiting on a dead server waits. Also: the keepalive options' ranges. */
#include "netcheck.h"
#include <netinet/tcp.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int server(int port, int send_at)
{
	double t0 = now();
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 4)) { perror("server"); return 1; }
	int c = accept(l, NULL, NULL);
	if (c < 0) { perror("accept"); return 1; }
	printf("server: accepted\n");
	fflush(stdout);
	if (send_at > 0) {
		double left = send_at - (now() - t0);
		if (left > 0) usleep((useconds_t)(left * 1e6));
		if (send(c, "late", 4, 0) != 4) perror("send");
	}
	for (;;) pause();
}

static int client(const char *host, int port, int ka)
{
	double t0 = now();
	struct hostent *h = gethostbyname(host);
	if (!h) { fprintf(stderr, "no host %s\n", host); return 1; }
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	memcpy(&a.sin_addr, h->h_addr_list[0], 4);
	int v = 0;
	printf("TCP_KEEPIDLE 0: %s\n", setsockopt(s, IPPROTO_TCP, TCP_KEEPIDLE, &v, sizeof v) ? strerrorname_np(errno) : "ok");
	v = 128;
	printf("TCP_KEEPCNT 128: %s\n", setsockopt(s, IPPROTO_TCP, TCP_KEEPCNT, &v, sizeof v) ? strerrorname_np(errno) : "ok");
	while (connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
		close(s);
		usleep(100000);
		s = socket(AF_INET, SOCK_STREAM, 0);
	}
	if (ka) {
		int on = 1, idle = 2, intvl = 1, cnt = 3;
		setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
		setsockopt(s, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
		setsockopt(s, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
		setsockopt(s, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
		socklen_t len = sizeof on;
		getsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &on, &len);
		printf("keepalive on: %d\n", on);
	}
	printf("connected at second %d\n", (int)(now() - t0));
	fflush(stdout);
	char buf[16];
	ssize_t n = recv(s, buf, sizeof buf, 0);
	int e = errno;
	if (n > 0) printf("recv: %.*s", (int)n, buf);
	else if (n == 0) printf("recv: EOF");
	else printf("recv: %s", strerrorname_np(e));
	printf(" at second %d\n", (int)(now() - t0));
	return 0;
}

int main(int argc, char **argv)
{
	require_lo_only();
	if (argc >= 3 && !strcmp(argv[1], "server")) return server(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 0);
	if (argc >= 4 && !strcmp(argv[1], "client")) return client(argv[2], atoi(argv[3]), argc > 4);
	fprintf(stderr, "usage: tcp_keepalive server PORT [SEND_AT] | client HOST PORT [ka]\n");
	return 2;
}
