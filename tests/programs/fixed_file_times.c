/* fixed_file_times: the times of the files dsim puts in place of the host's
 * (and of /sys and /dev), by stat and statx, after reading each file (a
 * read must not move its access time). Each line is
 * "PATH ATIME MTIME CTIME", seconds then nanoseconds; paths given as
 * arguments are added to the list. Natively they are the host's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const fixed[] = {
	"/etc/hosts", "/etc/resolv.conf", "/etc/hostname", "/etc/machine-id",
	"/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/loadavg", "/proc/uptime",
	"/proc/version", "/proc/sys/kernel/osrelease", "/proc/sys/kernel/random/boot_id",
	"/proc/sys/kernel/random/uuid", "/sys/devices/system/cpu/online",
	"/sys/devices/system/cpu/possible", "/sys/devices/system/cpu/present",
	"/sys/devices/system/cpu", "/dev/shm", "/dev/null", NULL,
};

static void show(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (read(fd, buf, sizeof buf) > 0 && strncmp(path, "/dev/", 5))
			;
		close(fd);
	}
	struct stat st;
	struct statx sx;
	if (stat(path, &st) != 0) {
		printf("%s error %s\n", path, strerror(errno));
		return;
	}
	printf("%s %lld.%09ld %lld.%09ld %lld.%09ld\n", path, (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &sx) != 0) {
		printf("%s statx error %s\n", path, strerror(errno));
		return;
	}
	if (sx.stx_atime.tv_sec != st.st_atim.tv_sec || sx.stx_mtime.tv_sec != st.st_mtim.tv_sec ||
	    sx.stx_ctime.tv_sec != st.st_ctim.tv_sec)
		printf("%s statx differs: %lld %lld %lld\n", path, (long long)sx.stx_atime.tv_sec,
		       (long long)sx.stx_mtime.tv_sec, (long long)sx.stx_ctime.tv_sec);
}

int main(int argc, char **argv)
{
	for (const char *const *p = fixed; *p; p++)
		show(*p);
	for (int i = 1; i < argc; i++)
		show(argv[i]);
	return 0;
}
