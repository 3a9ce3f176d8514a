/* A thread sleeps 1 ms while another busy-waits on the clock for its flag:
 * how late the sleeper wakes, in virtual time, shows whether the clock
 * reads that carry the time past its deadline let it run (clock_reads =
 * page answers reads only up to the next event, and none while a thread
 * its deadline woke waits to run). Prints "late N us" (the sleeper's
 * oversleep, by CLOCK_MONOTONIC), then "spin reads N" (the busy wait's
 * reads), then "ok". */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static atomic_int woke;
static long late_ns;

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void *sleeper(void *arg)
{
    struct timespec ms = { 0, 1000000 };
    long t0 = now_ns();
    nanosleep(&ms, NULL);
    late_ns = now_ns() - t0 - 1000000;
    atomic_store(&woke, 1);
    return arg;
}

int main(void)
{
    pthread_t th;
    long reads = 0, end;
    if (pthread_create(&th, NULL, sleeper, NULL)) return 1;
    end = now_ns() + 50000000L;                 /* 50 ms at most */
    while (!atomic_load(&woke) && now_ns() < end) reads++;
    pthread_join(th, NULL);
    printf("late %ld us\nspin reads %ld\nok\n", late_ns / 1000, reads);
    return 0;
}
