/* create_durable [--dirsync] DIR: one new file per step. At start it
 * creates DIR if need be (and fsyncs its parent, so DIR itself is durable),
 * counts the files DIR/f1, DIR/f2, ... that exist in order with their full
 * content ("file I\n") and prints "recovered K"; then for I = K+1 ... 40 it
 * creates DIR/fI, writes its content, fsyncs it, with --dirsync fsyncs DIR,
 * and prints "ack I". The file's content is durable either way, but its
 * name only with the directory fsync: a crash may lose an acknowledged file
 * only without --dirsync. */
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

static int content(int i, char *buf, size_t len) { return snprintf(buf, len, "file %d\n", i); }

/* Does DIR/fI exist with exactly its content? */
static int complete(const char *dir, int i)
{
    char path[4096], want[64], got[64];
    snprintf(path, sizeof path, "%s/f%d", dir, i);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    int len = content(i, want, sizeof want);
    ssize_t n = read(fd, got, sizeof got);
    close(fd);
    return n == len && !memcmp(got, want, (size_t)len);
}

int main(int argc, char **argv)
{
    int dirsync = argc > 2 && !strcmp(argv[1], "--dirsync");
    if (argc < 2) {
        fprintf(stderr, "usage: create_durable [--dirsync] DIR\n");
        return 2;
    }
    const char *dir = argv[argc - 1];
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", dir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) die(dir);
    fsync_dir(dirname(parent));

    int k = 0;
    while (k < LAST && complete(dir, k + 1)) k++;
    printf("recovered %d\n", k);
    fflush(stdout);
    for (int i = k + 1; i <= LAST; i++) {
        char path[4096], buf[64];
        snprintf(path, sizeof path, "%s/f%d", dir, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) die(path);
        int len = content(i, buf, sizeof buf);
        if (write(fd, buf, (size_t)len) != len) die("write");
        if (fsync(fd) != 0) die("fsync");
        close(fd);
        if (dirsync) fsync_dir(dir);
        printf("ack %d\n", i);
        fflush(stdout);
        struct timespec pause = { 0, 100000000 };
        nanosleep(&pause, NULL);
    }
    return 0;
}
