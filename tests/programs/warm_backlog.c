/* warm_backlog: TCP connections that wait in a listener's backlog across a
 * warm start's point (t_warm_net.sh).
 *
 *   warm_backlog server PORT
 *       Listens on PORT (backlog 4), prints "listening", sleeps 300 ms
 *       (its clients connect meanwhile: their connections wait, not yet
 *       accepted), then accepts two connections and, for each in the order
 *       accepted, reads a line and answers "echo LINE"; prints
 *       "accepted N: LINE" for each.
 *   warm_backlog client HOST PORT ID DELAY_MS
 *       Sleeps DELAY_MS, connects (retrying while refused), prints
 *       "connected" (the point: warm_start = output c2 connected, while
 *       the server sleeps), sleeps 50 ms, sends "hello ID", prints the
 *       answer.
 *
 * Every line is the same natively and under dsim. Exit 0, or 99 on a
 * failed call (its errno printed). Needs a network namespace of its own
 * (netcheck.h). */
#include "netcheck.h"

static void read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;
	while (n + 1 < len) {
		ssize_t r = read(fd, buf + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("read");
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = 0;
}

static int server(int port)
{
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0)
		die("socket");
	if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 4) != 0)
		die("bind/listen");
	printf("listening\n");
	fflush(stdout);
	sleep_ms(300);
	for (int i = 1; i <= 2; i++) {
		int c = accept(l, NULL, NULL);
		if (c < 0)
			die("accept");
		char line[64], answer[80];
		read_line(c, line, sizeof line);
		int n = snprintf(answer, sizeof answer, "echo %s\n", line);
		write_all(c, answer, (size_t)n);
		printf("accepted %d: %s\n", i, line);
		close(c);
	}
	return finish();
}

static int client(const char *host, int port, const char *id, int delay)
{
	sleep_ms(delay);
	int fd = connect_retry(host, port, 100);
	if (fd < 0)
		die("connect");
	printf("connected\n");
	fflush(stdout);
	sleep_ms(50);
	char line[64], answer[80];
	int n = snprintf(line, sizeof line, "hello %s\n", id);
	write_all(fd, line, (size_t)n);
	read_line(fd, answer, sizeof answer);
	printf("%s\n", answer);
	return finish();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	require_lo_only();
	if (argc == 3 && !strcmp(argv[1], "server"))
		return server(atoi(argv[2]));
	if (argc == 6 && !strcmp(argv[1], "client"))
		return client(argv[2], atoi(argv[3]), argv[4], atoi(argv[5]));
	fprintf(stderr, "usage: warm_backlog server PORT | client HOST PORT ID DELAY_MS\n");
	return 2;
}
