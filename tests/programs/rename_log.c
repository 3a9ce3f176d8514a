/* rename_log [--dirsync] DIR: a log kept by atomic replacement. At start it
 * creates DIR if need be (and fsyncs its parent, so DIR itself is durable),
 * counts the complete records "r1\n" "r2\n" ... of DIR/log and prints
 * "recovered N"; then for I = N+1 ... 40 it writes the whole new log (records
 * 1..I) to DIR/log.tmp, fsyncs it, renames it over DIR/log, with --dirsync
 * fsyncs DIR, and prints "ack I". The rename makes the name durable only
 * with the directory fsync: a crash may undo it (losing the file, or an
 * acknowledged record) only without --dirsync. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LAST 40

static void die(const char *what)
{
    perror(what);
    exit(2);
}

static void fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0 || fsync(fd) != 0) die(dir);
    close(fd);
}

/* The number of records r1, r2, ... in order, each ending in a newline. */
static int count_records(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[64];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char want[32];
        snprintf(want, sizeof want, "r%d\n", n + 1);
        if (strcmp(line, want)) break;         /* torn, zeroed or out of order */
        n++;
    }
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    int dirsync = argc > 2 && !strcmp(argv[1], "--dirsync");
    if (argc < 2) {
        fprintf(stderr, "usage: rename_log [--dirsync] DIR\n");
        return 2;
    }
    const char *dir = argv[argc - 1];
    char parent[4096], log[4096], tmp[4096];
    snprintf(parent, sizeof parent, "%s", dir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) die(dir);
    fsync_dir(dirname(parent));
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(tmp, sizeof tmp, "%s/log.tmp", dir);

    int n = count_records(log);
    printf("recovered %d\n", n);
    fflush(stdout);
    for (int i = n + 1; i <= LAST; i++) {
        char buf[LAST * 8];
        size_t len = 0;
        for (int r = 1; r <= i; r++) len += (size_t)snprintf(buf + len, sizeof buf - len, "r%d\n", r);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) die(tmp);
        if (write(fd, buf, len) != (ssize_t)len) die("write");
        if (fsync(fd) != 0) die("fsync");
        close(fd);
        if (rename(tmp, log) != 0) die("rename");
        if (dirsync) fsync_dir(dir);
        printf("ack %d\n", i);
        fflush(stdout);
        struct timespec pause = { 0, 100000000 };
        nanosleep(&pause, NULL);
    }
    return 0;
}
