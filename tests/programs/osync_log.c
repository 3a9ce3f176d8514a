/* osync_log [--osync|--dsync|--none] FILE: an append-only log whose writes
 * are made durable by the open flags, never by fsync. At start it counts
 * the complete records "o1\n" "o2\n" ... of FILE and prints "recovered N";
 * it opens FILE (creating it if need be) and makes the file and its name
 * durable (fsync the file, fsync its directory) before any write; then for
 * I = N+1 ... 40 it appends record I with one write() through that fd,
 * opened with O_SYNC (--osync), O_DSYNC (--dsync) or neither (--none), and
 * prints "ack I". A crash may lose an acknowledged record only with --none. */
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LAST 40

static void die(const char *what)
{
    perror(what);
    exit(2);
}

/* The number of records o1, o2, ... in order, each ending in a newline. */
static int count_records(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[64];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char want[32];
        snprintf(want, sizeof want, "o%d\n", n + 1);
        if (strcmp(line, want)) break;         /* torn, zeroed or out of order */
        n++;
    }
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "--osync") && strcmp(argv[1], "--dsync") && strcmp(argv[1], "--none"))) {
        fprintf(stderr, "usage: osync_log --osync|--dsync|--none FILE\n");
        return 2;
    }
    int flag = !strcmp(argv[1], "--osync") ? O_SYNC : !strcmp(argv[1], "--dsync") ? O_DSYNC : 0;
    const char *path = argv[2];
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);

    int n = count_records(path);
    printf("recovered %d\n", n);
    fflush(stdout);
    /* Records after the last complete one (a torn tail) are cut off, so the
     * next append continues the sequence. */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | flag, 0644);
    if (fd < 0) die(path);
    off_t end = 0;
    for (int r = 1; r <= n; r++) {
        char rec[32];
        end += snprintf(rec, sizeof rec, "o%d\n", r);
    }
    if (ftruncate(fd, end) != 0) die("ftruncate");
    if (fsync(fd) != 0) die("fsync");
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY);
    if (dfd < 0 || fsync(dfd) != 0) die("fsync dir");
    close(dfd);

    for (int i = n + 1; i <= LAST; i++) {
        char rec[32];
        int len = snprintf(rec, sizeof rec, "o%d\n", i);
        if (write(fd, rec, (size_t)len) != len) die("write");
        printf("ack %d\n", i);
        fflush(stdout);
        struct timespec pause = { 0, 100000000 };
        nanosleep(&pause, NULL);
    }
    close(fd);
    return 0;
}
