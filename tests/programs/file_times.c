/* file_times DIR: the times of files a program changes follow its own
 * clock. For a file written, appended with pwrite, truncated, touched
 * (utimensat with UTIME_NOW), created in a fresh directory (whose mtime
 * moves too), and given explicit times, it prints whether the mtime (and
 * ctime) read back with stat is within a second of the clock read around
 * the change ("now"), or exactly the explicit time. Natively and under dsim alike:
 * a kernel stamping the host's clock under a virtual one would print
 * "elsewhere". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void check(const char *what, const char *path)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct stat st;
    if (stat(path, &st) != 0) { printf("%s: cannot stat\n", what); return; }
    long long d = (long long)st.st_mtim.tv_sec - (long long)now.tv_sec;
    long long dc = (long long)st.st_ctim.tv_sec - (long long)now.tv_sec;
    printf("%s: mtime %s, ctime %s\n", what, d >= -1 && d <= 1 ? "now" : "elsewhere",
           dc >= -1 && dc <= 1 ? "now" : "elsewhere");
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: file_times DIR\n"); return 2; }
    char dir[512], path[600], sub[600], inner[700];
    snprintf(dir, sizeof dir, "%s", argv[1]);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/f", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "hello\n", 6) != 6) { perror("write"); return 1; }
    check("write", path);
    sleep(2);
    if (pwrite(fd, "again\n", 6, 6) != 6) { perror("pwrite"); return 1; }
    check("pwrite", path);
    sleep(2);
    if (ftruncate(fd, 3) != 0) { perror("ftruncate"); return 1; }
    check("ftruncate", path);
    close(fd);
    sleep(2);
    struct timespec touch[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
    utimensat(AT_FDCWD, path, touch, 0);
    check("touch", path);
    snprintf(sub, sizeof sub, "%s/d", dir);
    mkdir(sub, 0755);
    sleep(2);
    snprintf(inner, sizeof inner, "%s/new", sub);
    close(open(inner, O_WRONLY | O_CREAT, 0644));
    check("created", inner);
    check("its directory", sub);
    struct timespec given[2] = { { 1000000000, 5 }, { 1000000000, 7 } };
    utimensat(AT_FDCWD, path, given, 0);
    struct stat st;
    stat(path, &st);
    printf("explicit: mtime %s\n", st.st_mtim.tv_sec == 1000000000 && st.st_mtim.tv_nsec == 7 ? "as given" : "changed");
    return 0;
}
