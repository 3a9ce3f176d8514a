/* init_identity: what a program learns of its machine's pid 1, as
 * systemd-detect-virt-style checks read it: /proc/1/cmdline and environ
 * (NULs shown as '|'), comm, the exe link, and from /proc/1/status its
 * name, umask and signal state, its limits from /proc/1/limits and its
 * memory map (/proc/1/maps: addresses, permissions, names).
 * Each line is "KEY VALUE". Natively they are the host's init's; under
 * dsim, its init's, the same on every run, host and caller. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void show_file(const char *key, const char *path)
{
	char b[65536];
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("%s error %s\n", key, strerror(errno));
		return;
	}
	for (ssize_t r; n < sizeof b && (r = read(fd, b + n, sizeof b - n)) > 0;)
		n += (size_t)r;
	close(fd);
	if (n && b[n - 1] == '\n')
		n--;
	printf("%s %zu ", key, n);
	for (size_t i = 0; i < n; i++)
		putchar(b[i] ? b[i] : '|');
	putchar('\n');
}

static void show_lines(const char *key, const char *path, const char *const prefixes[])
{
	char line[512];
	FILE *f = fopen(path, "re");
	if (!f) {
		printf("%s error %s\n", key, strerror(errno));
		return;
	}
	while (fgets(line, sizeof line, f))
		for (const char *const *p = prefixes; *p; p++)
			if (!strncmp(line, *p, strlen(*p)))
				printf("%s %s", key, line);
	fclose(f);
}

int main(void)
{
	show_file("cmdline", "/proc/1/cmdline");
	show_file("environ", "/proc/1/environ");
	show_file("comm", "/proc/1/comm");
	char link[4096];
	ssize_t n = readlink("/proc/1/exe", link, sizeof link - 1);
	if (n < 0)
		printf("exe error %s\n", strerror(errno));
	else
		printf("exe %.*s\n", (int)n, link);
	static const char *const status[] = { "Name:", "Umask:", "SigBlk:", "SigIgn:", "SigCgt:", NULL };
	show_lines("status", "/proc/1/status", status);
	static const char *const limits[] = { "Max", NULL };
	show_lines("limits", "/proc/1/limits", limits);
	char line[512], range[64], perms[8], name[256];
	FILE *f = fopen("/proc/1/maps", "re");
	if (!f)
		printf("maps error %s\n", strerror(errno));
	while (f && fgets(line, sizeof line, f)) {
		name[0] = 0;
		if (sscanf(line, "%63s %7s %*s %*s %*s %255[^\n]", range, perms, name) >= 2)
			printf("maps %s %s %s\n", range, perms, name);
	}
	if (f)
		fclose(f);
	return 0;
}
