/* warm_unread: connections holding bytes not yet read at a warm start's
 * point (warm_start = 300ms).
 *
 *   warm_unread server PORT
 *       Listens on PORT. At 50 ms accepts the first connection, waits
 *       for its edge (epoll, edge-triggered) and reads 3 bytes of it; at
 *       200 ms takes the edges that came since; then sleeps until 500 ms (the point comes at 300 ms:
 *       the first connection holds the rest of what its client wrote, the
 *       second waits in the backlog with its line). Then reads the first
 *       connection to its end with a 64 KiB buffer, accepts the second and
 *       reads its line. Prints what it read of each (sizes and a
 *       checksum), then accepts the third and reads it to its end; the
 *       edges after the sleep and the size of each read go to stderr, which differs
 *       natively (the kernel's TCP) and under dsim (the relay's writes).
 *   warm_unread client HOST PORT big
 *       At 10 ms connects, writes "abcdef", 5 ms later "ghij", 5 ms later
 *       400 000 bytes in one write (more than the server's socket can
 *       hold).
 *   warm_unread client HOST PORT line
 *       At 60 ms connects, writes "hello from the backlog\n".
 *   warm_unread client HOST PORT bye
 *       At 70 ms connects, writes "bye\n" and closes its connection at
 *       once (the point finds it closed, the server not yet told).
 *   Each client then prints "sent" (the first two close their
 *   connections a second later, after the point) and lives on a second.
 *
 * Exit 0, or 99 on a failed call. Needs a network namespace of its own
 * (netcheck.h). */
#include "netcheck.h"
#include <sys/epoll.h>

enum { BIG = 400000 };

/* Reads s to its end, each read's size to stderr: the bytes read, their sum. */
static size_t drain(int s, unsigned long *sum)
{
	static char buf[65536];
	size_t total = 0;
	ssize_t k;
	while ((k = read(s, buf, sizeof buf)) > 0) {
		fprintf(stderr, "read %zd\n", k);
		for (ssize_t i = 0; i < k; i++)
			*sum = *sum * 31 + (unsigned char)buf[i];
		total += (size_t)k;
	}
	if (k < 0)
		die("read");
	return total;
}

static int server(int port)
{
	int l = listen_on("0.0.0.0", port, SOCK_STREAM);
	printf("listening\n");
	sleep_ms(50);
	int first = accept(l, NULL, NULL), ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.fd = first }, got;
	if (first < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, first, &ev) != 0 || epoll_wait(ep, &got, 1, -1) != 1)
		die("first edge");
	char head[4] = "";
	if (read(first, head, 3) != 3)
		die("first read");
	printf("first read: %s\n", head);
	/* At 200 ms its socket is full: the edges of what came since taken,
	 * none comes until it is read. */
	sleep_ms(150);
	fprintf(stderr, "edges at 200 ms: %d\n", epoll_wait(ep, &got, 1, 0));
	sleep_ms(300);
	fprintf(stderr, "edges after the sleep: %d\n", epoll_wait(ep, &got, 1, 0));
	unsigned long sum = 0;
	size_t n = drain(first, &sum);
	printf("then %zu bytes, checksum %lx\n", n, sum);
	int second = accept(l, NULL, NULL);
	if (second < 0)
		die("accept");
	char line[64] = "";
	ssize_t k = read(second, line, sizeof line - 1);
	if (k <= 0)
		die("second read");
	line[k] = 0;
	printf("backlog: %s", line);
	int third = accept(l, NULL, NULL);
	if (third < 0)
		die("accept");
	sum = 0;
	n = drain(third, &sum);
	printf("closed client: %zu bytes, checksum %lx\n", n, sum);
	return 0;
}

static int client(const char *host, int port, const char *what)
{
	int big = !strcmp(what, "big"), bye = !strcmp(what, "bye");
	sleep_ms(big ? 10 : bye ? 70 : 60);
	int s = connect_retry(host, port, 1);
	if (s < 0)
		die("connect");
	if (!big) {
		const char *line = bye ? "bye\n" : "hello from the backlog\n";
		if (write(s, line, strlen(line)) != (ssize_t)strlen(line))
			die("write");
	} else {
		static char data[BIG];
		for (int i = 0; i < BIG; i++)
			data[i] = (char)('a' + i % 26);
		if (write(s, "abcdef", 6) != 6)
			die("write");
		sleep_ms(5);
		if (write(s, "ghij", 4) != 4)
			die("write");
		sleep_ms(5);
		size_t off = 0;
		while (off < BIG) {
			ssize_t k = write(s, data + off, BIG - off);
			if (k <= 0)
				die("big write");
			off += (size_t)k;
		}
	}
	if (bye)
		close(s);
	printf("sent\n");
	sleep_ms(1000);
	if (!bye)
		close(s);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "server")) {
		require_lo_only();
		return server(atoi(argv[2]));
	}
	if (argc == 5 && !strcmp(argv[1], "client")) {
		require_lo_only();
		return client(argv[2], atoi(argv[3]), argv[4]);
	}
	fprintf(stderr, "usage: warm_unread server PORT | client HOST PORT big|line|bye\n");
	return 2;
}
