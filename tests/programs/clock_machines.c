/* One side of a two-machine cluster whose clock reads need no stop
 * (clock_reads = page). `spin MS`: reads CLOCK_MONOTONIC without a system
 * call between until MS ms have passed, then prints "reads N" and "ok".
 * `sleep K`: sleeps 1 ms K times and prints "late N us", the most any
 * sleep ended after its deadline (by CLOCK_MONOTONIC), then "ok". A
 * thread of another machine never waits for the spinner's reads, but the
 * sleeper, woken, waits for its turn while the spinner reads: how late it
 * wakes shows how many reads a turn the spinner gets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    long n = atol(argv[2]);
    if (!strcmp(argv[1], "spin")) {
        long end = now_ns() + n * 1000000L, reads = 1;
        while (now_ns() < end) reads++;
        printf("reads %s\n", reads > n ? "many" : "few");
    } else if (!strcmp(argv[1], "sleep")) {
        long late = 0;
        for (long i = 0; i < n; i++) {
            long t0 = now_ns();
            struct timespec ms = { 0, 1000000 };
            nanosleep(&ms, NULL);
            long l = now_ns() - t0 - 1000000;
            if (l > late) late = l;
        }
        printf("late %ld us\n", late / 1000);
    } else {
        return 2;
    }
    puts("ok");
    return 0;
}
