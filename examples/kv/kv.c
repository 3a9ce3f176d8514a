/* kv: a tiny key-value store that acknowledges each write, under crashes.
 *
 *     kv [--fsync] DIR
 *
 * The store is a log, DIR/data.log, of records "set KEY VALUE\n". At start
 * it replays the log (a torn last record, cut short by a crash, is
 * dropped) and prints "recovered N keys". Then it runs its workload: it
 * sets key1 .. key40, one every 50 ms, appending each record to the log and
 * then acknowledging it with "ack KEY" on stdout. An acknowledgement is a
 * promise: whoever reads it may forget the value, so the store must still
 * have it after any crash. A restarted store picks up after the keys it
 * recovered.
 *
 * The planted bug: without --fsync the store acknowledges a record that is
 * only in the page cache. A crash loses what was written after the last
 * fsync (Linux writes it back within seconds, not at once), so an
 * acknowledged key can vanish. With --fsync it calls fsync(2) on the log
 * before each acknowledgement.
 *
 * Build: cc -o kv kv.c */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KEYS 40

static void die(const char *what)
{
	fprintf(stderr, "kv: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* The number of whole records in the log: they set key1 .. keyN in order. */
static int recover(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f && errno == ENOENT)
		return 0;
	if (!f)
		die(path);
	char line[128];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		int k;
		if (!strchr(line, '\n') || sscanf(line, "set key%d ", &k) != 1 || k != n + 1)
			break;          /* torn by a crash: the rest is lost */
		n++;
	}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	int use_fsync = argc == 3 && !strcmp(argv[1], "--fsync");
	if (argc != 2 + use_fsync) {
		fprintf(stderr, "usage: kv [--fsync] DIR\n");
		return 2;
	}
	const char *dir = argv[argc - 1];
	char path[4096];
	snprintf(path, sizeof path, "%s/data.log", dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die(dir);

	int n = recover(path);
	printf("recovered %d keys\n", n);
	fflush(stdout);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		die(path);
	for (int k = n + 1; k <= KEYS; k++) {
		char rec[64];
		int len = snprintf(rec, sizeof rec, "set key%d value%d\n", k, k);
		if (write(fd, rec, (size_t)len) != len)
			die("write");
		if (use_fsync && fsync(fd) < 0)
			die("fsync");
		printf("ack key%d\n", k);      /* the promise */
		fflush(stdout);
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
	return 0;
}
