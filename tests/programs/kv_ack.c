/* kv_ack [--fsync] FILE: a tiny log-structured store. At start it counts the
 * records in FILE and prints "recovered N"; then it appends records N+1 ...
 * 60, printing "ack I" after each write, and with --fsync only after an
 * fsync. A crash may lose an acknowledged record only without --fsync. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int sync_first = argc > 2 && !strcmp(argv[1], "--fsync");
    const char *path = argv[argc - 1];
    int n = 0;
    FILE *f = fopen(path, "r");
    char line[64];
    while (f && fgets(line, sizeof line, f))
        if (line[0] == 'k' && strchr(line, '\n')) n++;     /* a torn record does not count */
    if (f) fclose(f);
    printf("recovered %d\n", n);
    fflush(stdout);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    for (int i = n + 1; i <= 60; i++) {
        char rec[32];
        int len = snprintf(rec, sizeof rec, "k%d\n", i);
        if (write(fd, rec, (size_t)len) != len) return 2;
        if (sync_first) fsync(fd);
        printf("ack %d\n", i);
        fflush(stdout);
        struct timespec pause = { 0, 100000000 };
        nanosleep(&pause, NULL);
    }
    return 0;
}
