/* tmp_view: what a program sees of /tmp and /var/tmp: their listings
 * (names and types), their mode, link count and times; then the same after
 * it makes a file in each; and how many entries a directory given as an
 * argument lists (a dsim run directory's parent, which a machine must see
 * empty). Each line is "KEY VALUE". Natively the listings are the host's. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void list(const char *key, const char *dir)
{
	struct dirent **v;
	int n = scandir(dir, &v, NULL, by_name);
	if (n < 0) {
		printf("%s error %s\n", key, strerror(errno));
		return;
	}
	printf("%s", key);
	for (int i = 0; i < n; i++) {
		printf(" %s/%d", v[i]->d_name, v[i]->d_type);
		free(v[i]);
	}
	free(v);
	putchar('\n');
	struct stat st;
	if (stat(dir, &st) == 0)
		printf("%s_stat %o %lu %lld %lld %lld\n", key, st.st_mode, (unsigned long)st.st_nlink,
		       (long long)st.st_atime, (long long)st.st_mtime, (long long)st.st_ctime);
}

static int count(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	list("tmp", "/tmp");
	list("var_tmp", "/var/tmp");
	char path[64];
	snprintf(path, sizeof path, "/tmp/tmp_view.%d", (int)getpid());
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	snprintf(path, sizeof path, "/var/tmp/tmp_view.%d", (int)getpid());
	int fd2 = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0 || fd2 < 0)
		return 1;
	list("tmp_after", "/tmp");
	list("var_tmp_after", "/var/tmp");
	unlink(path);
	snprintf(path, sizeof path, "/tmp/tmp_view.%d", (int)getpid());
	unlink(path);
	for (int i = 1; i < argc; i++)
		printf("entries %d\n", count(argv[i]));
	return 0;
}
