/* entropy: print every source of nondeterminism a plain process can reach.
 *
 * Each line is "KEY VALUE". Natively most values change from run to run; under
 * dsim they must be a function of the seed only:
 *   getrandom0, getrandom_nonblock, urandom, random, at_random: from the
 *     per-seed PRNG (differ between seeds);
 *   addr_stack, addr_heap, addr_libc, addr_main: fixed (no ASLR), the same
 *     on every seed;
 *   uname_*, hostname, nprocs, phys_mem, affinity_cpus, pid, tid: the
 *     machine's fixed identity.
 * Exits non-zero only if a call fails. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "entropy: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void hex(const char *key, const unsigned char *b, size_t n)
{
	printf("%s ", key);
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
	putchar('\n');
}

static void read_dev(const char *key, const char *path)
{
	unsigned char b[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	size_t got = 0;
	while (got < sizeof b) {
		ssize_t r = read(fd, b + got, sizeof b - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die(path);
		got += (size_t)r;
	}
	close(fd);
	hex(key, b, sizeof b);
}

static void get_random(const char *key, unsigned flags)
{
	unsigned char b[16];
	ssize_t r = getrandom(b, sizeof b, flags);
	if (r != (ssize_t)sizeof b)
		die("getrandom");
	hex(key, b, sizeof b);
}

int main(void)
{
	int on_stack = 1;

	get_random("getrandom0", 0);
	get_random("getrandom_nonblock", GRND_NONBLOCK);
	read_dev("urandom", "/dev/urandom");
	read_dev("random", "/dev/random");

	const unsigned char *at_random = (const unsigned char *)getauxval(AT_RANDOM);
	if (!at_random)
		die("getauxval(AT_RANDOM)");
	hex("at_random", at_random, 16);

	void *heap = malloc(64);
	if (!heap)
		die("malloc");
	printf("addr_stack %p\n", (void *)&on_stack);
	printf("addr_heap %p\n", heap);
	printf("addr_libc %p\n", (void *)&printf);
	printf("addr_main %p\n", (void *)&main);
	free(heap);

	struct utsname u;
	if (uname(&u) != 0)
		die("uname");
	printf("uname_sysname %s\n", u.sysname);
	printf("uname_nodename %s\n", u.nodename);
	printf("uname_release %s\n", u.release);
	printf("uname_version %s\n", u.version);
	printf("uname_machine %s\n", u.machine);

	char host[256];
	if (gethostname(host, sizeof host) != 0)
		die("gethostname");
	printf("hostname %s\n", host);

	long nprocs = sysconf(_SC_NPROCESSORS_ONLN);
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	long pages = sysconf(_SC_PHYS_PAGES);
	long pagesize = sysconf(_SC_PAGESIZE);
	if (nprocs < 0 || pages < 0 || pagesize < 0)
		die("sysconf");
	printf("nprocs %ld\n", nprocs);
	printf("nprocs_conf %ld\n", conf);
	printf("phys_mem %llu\n", (unsigned long long)pages * (unsigned long long)pagesize);

	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		die("sched_getaffinity");
	printf("affinity_cpus %d\n", CPU_COUNT(&set));

	printf("pid %d\n", (int)getpid());
	printf("tid %d\n", (int)syscall(SYS_gettid));
	return 0;
}
