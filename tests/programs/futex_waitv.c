/* futex_waitv: one thread waits on two futexes, another wakes the second
 * one, and the wait returns its index; then the errors Linux gives for bad
 * flags, counts, clocks, entries, values and a past timeout. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint32_t a, b;

static long waitv(struct futex_waitv *v, unsigned n, unsigned flags, struct timespec *ts, int clk)
{
    return syscall(SYS_futex_waitv, v, n, flags, ts, clk);
}

static void show(const char *what, long r)
{
    printf("%-36s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
}

static void *waker(void *arg)
{
    struct timespec ms = { 0, 1000000 };
    nanosleep(&ms, NULL);
    long woken;
    do {        /* until the waiter is there to be woken (b stays 0: no race) */
        woken = syscall(SYS_futex, &b, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        if (!woken) nanosleep(&ms, NULL);
    } while (woken == 0);
    return arg;
}

int main(void)
{
    struct futex_waitv v[2] = {
        { .val = 0, .uaddr = (uintptr_t)&a, .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG },
        { .val = 0, .uaddr = (uintptr_t)&b, .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG },
    };
    pthread_t th;
    pthread_create(&th, NULL, waker, NULL);
    show("waitv woken through b", waitv(v, 2, 0, NULL, 0));
    pthread_join(th, NULL);
    __atomic_store_n(&b, 1, __ATOMIC_SEQ_CST);

    struct timespec past = { 0, 0 };
    show("waitv value differs", waitv(v, 2, 0, NULL, 0));
    v[1].val = 1;
    show("waitv past timeout", waitv(v, 2, 0, &past, CLOCK_MONOTONIC));
    show("waitv flags", waitv(v, 2, 1, NULL, 0));
    show("waitv zero count", waitv(v, 0, 0, NULL, 0));
    show("waitv too many", waitv(v, 129, 0, NULL, 0));
    show("waitv bad clock", waitv(v, 2, 0, &past, CLOCK_BOOTTIME));
    show("waitv bad timeout", waitv(v, 2, 0, (void *)8, CLOCK_MONOTONIC));
    show("waitv bad array", waitv((void *)8, 2, 0, NULL, 0));
    v[0].flags = FUTEX_32 | 0x40;
    show("waitv bad entry flags", waitv(v, 2, 0, NULL, 0));
    v[0].flags = 0x03 | FUTEX_PRIVATE_FLAG;
    show("waitv 64-bit entry", waitv(v, 2, 0, NULL, 0));
    v[0].flags = FUTEX_32 | FUTEX_PRIVATE_FLAG;
    v[0].uaddr = (uintptr_t)&a + 1;
    show("waitv misaligned", waitv(v, 2, 0, NULL, 0));
    return 0;
}
