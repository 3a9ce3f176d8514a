/* proc_counters: a process's own counters in /proc, as tests and
 * monitoring read them. It polls its CPU time in /proc/self/stat until it
 * moves (a common test idiom: the number of polls shows whether the time
 * is the run's), and /proc/self/schedstat likewise; compares them with
 * times(); reads a waiting thread's state, and its own; prints the fields
 * that showed the host (start time, the CPU last run on, page faults,
 * context switches, resident memory, CPU and node masks, queued signals,
 * storage I/O). Each line is "KEY VALUE". */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

static char *slurp(const char *path)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

/* Field k (1-based, as proc(5) numbers them) of a stat line. */
static const char *stat_field(const char *line, int k, char *out, size_t len)
{
	const char *p = strrchr(line, ')');
	out[0] = 0;
	if (!p)
		return out;
	p += 2;
	for (int f = 3; f < k && p; f++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		snprintf(out, len, "%.*s", (int)strcspn(p, " \n"), p);
	return out;
}

static const char *status_line(const char *text, const char *name, char *out, size_t len)
{
	const char *p = strstr(text, name);
	out[0] = 0;
	if (p) {
		p += strlen(name);
		while (*p == ':' || *p == '\t' || *p == ' ')
			p++;
		snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
	}
	return out;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int go, waiter_tid;

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	waiter_tid = (int)syscall(SYS_gettid);
	pthread_cond_broadcast(&cond);
	while (!go)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	char f[64], g[64];
	/* Poll the CPU time until it moves; then the same by schedstat. */
	long polls = 0;
	char first[64];
	stat_field(slurp("/proc/self/stat"), 14, first, sizeof first);
	do
		polls++;
	while (!strcmp(stat_field(slurp("/proc/self/stat"), 14, f, sizeof f), first) && polls < 10000000);
	struct tms tm;
	times(&tm);
	printf("utime_polls %s\n", polls < 10000000 ? "moved" : "stuck");
	printf("utime_vs_times %s\n", labs(atol(f) - (long)tm.tms_utime) <= 1 ? "agree" : "differ");
	unsigned long long run0 = strtoull(slurp("/proc/self/schedstat"), NULL, 10), run;
	long spolls = 0;
	do
		spolls++;
	while ((run = strtoull(slurp("/proc/self/schedstat"), NULL, 10)) == run0 && spolls < 10000000);
	printf("schedstat_polls %s\n", spolls < 10000000 ? "moved" : "stuck");
	fprintf(stderr, "polls %ld %ld\n", polls, spolls);

	pthread_t th;
	pthread_mutex_lock(&lock);
	pthread_create(&th, NULL, waiter, NULL);
	while (!waiter_tid)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	struct timespec ms = { 0, 1000000 };
	nanosleep(&ms, NULL);           /* the waiter is back in its wait */
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", waiter_tid);
	printf("waiter_state %s\n", stat_field(slurp(path), 3, f, sizeof f));
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)syscall(SYS_gettid));
	printf("own_state %s\n", stat_field(slurp(path), 3, f, sizeof f));
	pthread_mutex_lock(&lock);
	go = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(th, NULL);

	char *stat = slurp("/proc/self/stat");
	printf("processor %s\n", stat_field(stat, 39, f, sizeof f));
	printf("fields %s\n", stat_field(stat, 52, f, sizeof f)[0] ? "52" : "fewer");
	char *status = slurp("/proc/self/status");
	printf("State %s\n", status_line(status, "\nState", g, sizeof g));
	printf("voluntary_ctxt_switches %s\n", atol(status_line(status, "\nvoluntary_ctxt_switches", g, sizeof g)) > 0 ? "some" : "none");
	printf("VmRSS %s\n", atol(status_line(status, "\nVmRSS", g, sizeof g)) > 0 ? "some" : "none");
	printf("Cpus_allowed_list %s\n", status_line(status, "\nCpus_allowed_list", g, sizeof g));
	printf("Mems_allowed_list %s\n", status_line(status, "\nMems_allowed_list", g, sizeof g));
	char *io = slurp("/proc/self/io");
	printf("io_lines %d\n", (int)(strchr(io, '\n') ? 7 : 0));
	int n = 0;
	for (char *p = slurp("/proc/self/statm"); *p; p++)
		n += *p == ' ';
	printf("statm_fields %d\n", n + 1);
	/* The values, for the logs (natively the host's). */
	fprintf(stderr, "stat %s", slurp("/proc/self/stat"));
	fprintf(stderr, "schedstat %s", slurp("/proc/self/schedstat"));
	return 0;
}
