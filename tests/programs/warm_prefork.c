/* warm_prefork: a pre-forking server, its listener shared by its workers
 * at a warm start's point.
 *
 *   warm_prefork server PORT NWORKERS
 *       Listens on PORT, forks NWORKERS workers that each accept on the
 *       listener and answer one line per connection with "echo LINE",
 *       then prints "ready" (the point: warm_start = output srv ready) and
 *       waits for its workers (which serve until the run ends).
 *   warm_prefork client HOST PORT ID
 *       Sleeps 50 ms, sends "hello ID" over a connection and prints the
 *       answer; twice.
 *
 * The clients print the same lines natively and under dsim. Exit 0, or 99
 * on a failed call. Needs a network namespace of its own (netcheck.h). */
#include "netcheck.h"

static _Noreturn void worker(int l)
{
	for (;;) {
		int c = accept(l, NULL, NULL);
		if (c < 0)
			die("accept");
		char buf[128], out[160];
		ssize_t k = read(c, buf, sizeof buf - 1);
		if (k > 0) {
			buf[k] = 0;
			buf[strcspn(buf, "\n")] = 0;
			int m = snprintf(out, sizeof out, "echo %s\n", buf);
			if (write(c, out, (size_t)m) != m)
				die("write");
		}
		close(c);
	}
}

static int server(int port, int nworkers)
{
	int l = listen_on("0.0.0.0", port, SOCK_STREAM);
	for (int i = 0; i < nworkers; i++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0)
			worker(l);
	}
	printf("ready\n");
	while (wait(NULL) > 0) {
	}
	return 0;
}

static int client(const char *host, int port, int id)
{
	sleep_ms(50);
	for (int round = 0; round < 2; round++) {
		int s = connect_retry(host, port, 1);
		if (s < 0)
			die("connect");
		char line[64], answer[160];
		int m = snprintf(line, sizeof line, "hello %d\n", id);
		if (write(s, line, (size_t)m) != m)
			die("write");
		ssize_t k = read(s, answer, sizeof answer - 1);
		if (k <= 0)
			die("read");
		answer[k] = 0;
		printf("%s", answer);
		close(s);
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "server")) {
		require_lo_only();
		return server(atoi(argv[2]), atoi(argv[3]));
	}
	if (argc == 5 && !strcmp(argv[1], "client")) {
		require_lo_only();
		return client(argv[2], atoi(argv[3]), atoi(argv[4]));
	}
	fprintf(stderr, "usage: warm_prefork server PORT NWORKERS | client HOST PORT ID\n");
	return 2;
}
