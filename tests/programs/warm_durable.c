/* warm_durable: a file synced before a warm start's point and written on
 * after it, until a crash (t_warm_snapshot.sh: warm_start = 100ms, in the
 * sleep; [fault] crash at 1 s).
 *
 *   warm_durable write PATH
 *       Makes PATH's directory, appends "line 1" .. "line 5" to PATH and
 *       fsyncs, appends "line 6" (not synced at the point), writes
 *       "line 1" .. "line 3" to PATH.meta and fsyncs, prints "ready" and
 *       sleeps 200 ms; then appends a line to each every 10 ms, fsyncs
 *       PATH once after "line 12" (what it makes durable includes
 *       "line 6"), PATH.meta never, until it is killed.
 *   warm_durable write-replace PATH
 *       The same, and just before "ready" replaces PATH.old (made and
 *       synced first; its inode number printed) by renaming PATH.new over
 *       it, not synced at the point, and syncs nothing after it.
 *   warm_durable write-replace-linked PATH
 *       The same, PATH.old having a second name (PATH.keep) too.
 *   warm_durable read PATH
 *       After the restart: prints how many lines PATH and PATH.meta have,
 *       their last lines and whether every line is whole and in order;
 *       and PATH.old's first line and inode number, if there is one.
 *
 * Exit 0, or 1 on a failed call. */
#include "plainprog.h"
#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>
#include <unistd.h>

static void line(int fd, int n)
{
	char buf[32];
	int len = snprintf(buf, sizeof buf, "line %d\n", n);
	if (write(fd, buf, (size_t)len) != len)
		die("write");
}

/* name, with content, synced. */
static void synced_file(const char *name, const char *content)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, content, strlen(content)) != (ssize_t)strlen(content) || fsync(fd) != 0)
		die(name);
	close(fd);
}

static int writer(const char *path, int replace)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	if (mkdir(dirname(dir), 0755) != 0 && errno != EEXIST)
		die("mkdir");
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		die("open");
	for (int n = 1; n <= 5; n++)
		line(fd, n);
	if (fsync(fd) != 0)
		die("fsync");
	line(fd, 6);
	char meta[4200];
	snprintf(meta, sizeof meta, "%s.meta", path);
	int mfd = open(meta, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (mfd < 0)
		die("open meta");
	for (int n = 1; n <= 3; n++)
		line(mfd, n);
	if (fsync(mfd) != 0)
		die("fsync meta");
	if (replace) {
		char old[4200], new[4200];
		snprintf(old, sizeof old, "%s.old", path);
		snprintf(new, sizeof new, "%s.new", path);
		synced_file(old, "old\n");
		struct stat st;
		if (stat(old, &st) != 0)
			die("stat old");
		printf("old inode %lu\n", (unsigned long)st.st_ino);
		char keep[4200];
		snprintf(keep, sizeof keep, "%s.keep", path);
		if (replace > 1 && link(old, keep) != 0)
			die("link");
		int nfd = open(new, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (nfd < 0 || write(nfd, "new\n", 4) != 4 || rename(new, old) != 0)
			die("replace");
		close(nfd);
	}
	printf("ready\n");
	fflush(stdout);
	sleep_ms(200);
	for (int n = 7; n < 100000; n++) {
		line(fd, n);
		line(mfd, n - 3);
		if (n == 12 && !replace && fsync(fd) != 0)
			die("fsync");
		sleep_ms(10);
	}
	return 0;
}

static void summary(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die("fopen");
	char buf[64], last[64] = "";
	int n = 0;
	int in_order = 1;
	while (fgets(buf, sizeof buf, f)) {
		int k;
		n++;
		if (sscanf(buf, "line %d", &k) != 1 || k != n || !strchr(buf, '\n'))
			in_order = 0;
		snprintf(last, sizeof last, "%.*s", (int)strcspn(buf, "\n"), buf);
	}
	fclose(f);
	printf("%s: %d lines, last \"%s\", %s\n", basename((char *)path), n, last, in_order ? "whole and in order" : "torn");
}

static int reader(const char *path)
{
	char meta[4200];
	snprintf(meta, sizeof meta, "%s.meta", path);
	summary(path);
	summary(meta);
	char old[4200], buf[16] = "";
	struct stat st;
	snprintf(old, sizeof old, "%s.old", path);
	FILE *f = fopen(old, "r");
	if (f && fstat(fileno(f), &st) == 0)
		printf("old: \"%.*s\", inode %lu\n", fgets(buf, sizeof buf, f) ? (int)strcspn(buf, "\n") : 0, buf,
		       (unsigned long)st.st_ino);
	if (f)
		fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	static const char *const modes[] = { "write", "write-replace", "write-replace-linked" };
	for (int k = 0; k < 3; k++)
		if (argc == 3 && !strcmp(argv[1], modes[k]))
			return writer(argv[2], k);
	if (argc == 3 && !strcmp(argv[1], "read"))
		return reader(argv[2]);
	fprintf(stderr, "usage: warm_durable write|write-replace|write-replace-linked|read PATH\n");
	return 2;
}
