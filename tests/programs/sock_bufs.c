/* sock_bufs [values]: SO_SNDBUF, SO_RCVBUF, SO_SNDBUFFORCE and
 * SO_RCVBUFFORCE on TCP and UDP sockets, set to sizes around and past the
 * limits and read back. Each result is checked against sk_setsockopt's
 * rule: the size capped at net.core.wmem_max or rmem_max (read from
 * /proc/sys/net/core) as an unsigned number, or, forced, only made
 * non-negative; at most INT_MAX / 2; doubled; at least the least buffer
 * (what a size of 0 gives). Also: a getsockopt of a FORCE name
 * (ENOPROTOOPT), and the FORCE names without CAP_NET_ADMIN (EPERM, in a
 * child that drops to uid 65534). One line per case, the same on any
 * host, then "ok". With "values": the sizes read back and the sysctls,
 * raw (which depend on the host natively). */
#include "netcheck.h"
#include <limits.h>
#include <stdbool.h>
#include <sys/wait.h>

static long sysctl_value(const char *name)
{
	char path[128];
	snprintf(path, sizeof path, "/proc/sys/net/core/%s", name);
	FILE *f = fopen(path, "r");
	long v = -1;
	if (!f || fscanf(f, "%ld", &v) != 1)
		die(path);
	fclose(f);
	return v;
}

static int set_get(int type, int name, int v, int *got, int *err)
{
	int s = socket(AF_INET, type, 0);
	if (s < 0)
		die("socket");
	int r = setsockopt(s, SOL_SOCKET, name, &v, sizeof v);
	*err = r ? errno : 0;
	socklen_t gl = sizeof *got;
	int readback = name == SO_SNDBUF || name == SO_SNDBUFFORCE ? SO_SNDBUF : SO_RCVBUF;
	if (getsockopt(s, SOL_SOCKET, readback, got, &gl) != 0)
		die("getsockopt");
	close(s);
	return r;
}

static const char *opt_name(int name)
{
	return name == SO_SNDBUF ? "SO_SNDBUF" : name == SO_RCVBUF ? "SO_RCVBUF" :
	       name == SO_SNDBUFFORCE ? "SO_SNDBUFFORCE" : "SO_RCVBUFFORCE";
}

int main(int argc, char **argv)
{
	require_lo_only();
	bool values = argc > 1 && !strcmp(argv[1], "values");
	long wmax = sysctl_value("wmem_max"), rmax = sysctl_value("rmem_max");
	if (values)
		printf("wmem_max %ld rmem_max %ld wmem_default %ld rmem_default %ld\n", wmax, rmax,
		       sysctl_value("wmem_default"), sysctl_value("rmem_default"));
	static const int sizes[] = { -5, 0, 1, 1000, 1152, 2304, 100000, 212992, 300000, 5000000, INT_MAX };
	static const int names[] = { SO_SNDBUF, SO_RCVBUF, SO_SNDBUFFORCE, SO_RCVBUFFORCE };
	int bad = 0;
	for (int ty = 0; ty < 2; ty++)
		for (int n = 0; n < 4; n++) {
			int name = names[n], got, err;
			bool snd = name == SO_SNDBUF || name == SO_SNDBUFFORCE;
			bool force = name == SO_SNDBUFFORCE || name == SO_RCVBUFFORCE;
			int least;
			set_get(ty ? SOCK_DGRAM : SOCK_STREAM, name, 0, &least, &err);
			for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
				int v = sizes[i];
				int r = set_get(ty ? SOCK_DGRAM : SOCK_STREAM, name, v, &got, &err);
				long want = force ? (v < 0 ? 0 : v) : ((unsigned)v < (unsigned long)(snd ? wmax : rmax) ? v : (snd ? wmax : rmax));
				if (want > INT_MAX / 2)
					want = INT_MAX / 2;
				want = want * 2 < least ? least : want * 2;
				if (values)
					printf("%s %s %d: %d\n", ty ? "udp" : "tcp", opt_name(name), v, got);
				else if (r != 0 || got != want) {
					printf("%s %s %d: %s, reads back %d, Linux gives %ld\n", ty ? "udp" : "tcp",
					       opt_name(name), v, r ? errname(err) : "0", got, want);
					bad = 1;
				} else {
					printf("%s %s %d: 0, as Linux\n", ty ? "udp" : "tcp", opt_name(name), v);
				}
			}
		}
	int s = socket(AF_INET, SOCK_STREAM, 0), v = 0;
	socklen_t vl = sizeof v;
	for (int n = 2; n < 4; n++) {
		int r = getsockopt(s, SOL_SOCKET, names[n], &v, &vl);
		printf("getsockopt %s: %s\n", opt_name(names[n]), r ? errname(errno) : "0");
	}
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			die("setuid 65534");
		for (int n = 2; n < 4; n++) {
			int x = 4096, r = setsockopt(s, SOL_SOCKET, names[n], &x, sizeof x);
			printf("as uid 65534, %s: %s\n", opt_name(names[n]), r ? errname(errno) : "0");
		}
		fflush(stdout);
		_exit(0);
	}
	int st;
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		die("the child that drops to uid 65534");
	if (!values)
		printf(bad ? "FAILED\n" : "ok\n");
	return bad;
}
