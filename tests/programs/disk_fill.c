/* Fills the machine's disk: reports its size as statfs gives it, what a
 * fallocate of 1 TiB gets, then writes 1 MiB blocks until the disk is full
 * and reports how far it got and the error, and that the space comes back
 * when the file is removed. Usage: disk_fill DIR */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/fill", argv[1]);
    struct statfs sf;
    if (statfs(argv[1], &sf)) return 1;
    printf("size %llu MiB\n", (unsigned long long)sf.f_blocks * sf.f_bsize >> 20);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return 1;
    printf("fallocate 1 TiB %s\n", fallocate(fd, 0, 0, 1LL << 40) == 0 ? "ok" : strerrorname_np(errno));
    static char block[1 << 20];
    memset(block, 'x', sizeof block);
    long long total = 0;
    ssize_t n;
    while ((n = write(fd, block, sizeof block)) > 0) total += n;
    printf("wrote about %lld MiB, then %s\n", total >> 20, n < 0 ? strerrorname_np(errno) : "0");
    printf("fsync %s\n", fsync(fd) == 0 ? "ok" : strerrorname_np(errno));
    close(fd);
    statfs(argv[1], &sf);
    printf("free when full below 1 MiB %d\n", (unsigned long long)sf.f_bavail * sf.f_bsize < (1 << 20));
    unlink(path);
    sync();             /* the unlink durable: the file is gone for good */
    statfs(argv[1], &sf);
    printf("free after unlink above half %d\n", sf.f_bavail * 2 > sf.f_blocks);
    return 0;
}
