/* sndbuf_spin [MILLIONS]: a simulated TCP connection to itself (a
 * listener on 127.0.0.1, a client, the accepted socket, a byte each way)
 * and a UDP socket, then "ready" and a computation of MILLIONS (default
 * 1500) million loop rounds with no system call, then "done". Under dsim
 * the kernel sockets under the simulated ones stay as they are while it
 * computes, so that a test can look at them (t_net_sndbuf.sh). */
#include "netcheck.h"

int main(int argc, char **argv)
{
	require_lo_only();
	long rounds = (argc > 1 ? atol(argv[1]) : 1500) * 1000000L;
	int l = listen_on("127.0.0.1", 7300, SOCK_STREAM);
	int c = connect_retry("127.0.0.1", 7300, 1);
	if (c < 0)
		die("connect");
	int a = accept(l, NULL, NULL);
	if (a < 0)
		die("accept");
	char b = 'x';
	write_all(c, &b, 1);
	if (read_full(a, &b, 1) != 1 || b != 'x')
		die("read from the client");
	write_all(a, "y", 1);
	if (read_full(c, &b, 1) != 1 || b != 'y')
		die("read from the server");
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	if (u < 0)
		die("socket UDP");
	printf("ready\n");
	fflush(stdout);
	/* A stop after the write: a warm start's point at "ready" (the end
	 * of the step that printed it) comes before the computation. */
	(void)getppid();
	volatile unsigned long sum = 0;
	for (long i = 0; i < rounds; i++)
		sum += (unsigned long)i;
	printf("done\n");
	return 0;
}
