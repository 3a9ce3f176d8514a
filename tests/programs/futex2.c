/* The futex2 calls of Linux 6.7 (futex_wait, futex_wake, futex_requeue):
 * a waiter woken, two waiters requeued from one word to another and woken
 * there, timeouts, and the errors in Linux's order. One line per case;
 * a kernel without them prints "no futex2" only. */
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

#ifndef SYS_futex_wake
#define SYS_futex_wake 454
#define SYS_futex_wait 455
#define SYS_futex_requeue 456
#endif
#define F2_U32 0x02
#define F2_PRIVATE 128

struct waitv { uint64_t val, uaddr; uint32_t flags, reserved; };

static uint32_t a, b;

static void show(const char *what, long r)
{
    printf("%-44s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
    fflush(stdout);
}

static long f2_wait(uint32_t *w, unsigned long val, unsigned long mask, unsigned flags, const struct timespec *ts,
                    int clk)
{
    return syscall(SYS_futex_wait, w, val, mask, flags, ts, clk);
}

static long f2_wake(uint32_t *w, unsigned long mask, int nr, unsigned flags)
{
    return syscall(SYS_futex_wake, w, mask, nr, flags);
}

static long f2_requeue(struct waitv *v, unsigned flags, int nr_wake, int nr_requeue)
{
    return syscall(SYS_futex_requeue, v, flags, nr_wake, nr_requeue);
}

static void *waiter(void *arg)
{
    long r = f2_wait((uint32_t *)arg, 0, ~0u, F2_U32 | F2_PRIVATE, NULL, 0);
    return (void *)r;
}

int main(void)
{
    if (f2_wake(&a, ~0u, 1, F2_U32 | F2_PRIVATE) < 0 && errno == ENOSYS) {
        printf("no futex2\n");
        return 0;
    }
    pthread_t t1, t2;
    pthread_create(&t1, NULL, waiter, &a);
    long woken = 0;
    while (!(woken = f2_wake(&a, ~0u, 1, F2_U32 | F2_PRIVATE))) usleep(1000);
    void *r;
    pthread_join(t1, &r);
    printf("%-44s %ld, the waiter's futex_wait %ld\n", "futex_wake a waiter", woken, (long)r);

    pthread_create(&t1, NULL, waiter, &a);
    pthread_create(&t2, NULL, waiter, &a);
    struct waitv v[2] = { { 0, (uintptr_t)&a, F2_U32 | F2_PRIVATE, 0 }, { 0, (uintptr_t)&b, F2_U32 | F2_PRIVATE, 0 } };
    long moved = 0;
    while (moved < 2) {
        long n = f2_requeue(v, 0, 0, 2 - (int)moved);
        if (n < 0) { show("futex_requeue", n); return 1; }
        moved += n;
        if (moved < 2) usleep(1000);
    }
    long from_b = 0;
    while (from_b < 2) from_b += f2_wake(&b, ~0u, 2, F2_U32 | F2_PRIVATE);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("%-44s %ld, then woken from b %ld\n", "futex_requeue two waiters a -> b", moved, from_b);

    struct timespec past = { 0, 0 }, now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    show("futex_wait value differs", f2_wait(&a, 1, ~0u, F2_U32 | F2_PRIVATE, NULL, 0));
    show("futex_wait past timeout, MONOTONIC", f2_wait(&a, 0, ~0u, F2_U32 | F2_PRIVATE, &past, CLOCK_MONOTONIC));
    show("futex_wait past timeout, REALTIME", f2_wait(&a, 0, ~0u, F2_U32 | F2_PRIVATE, &past, CLOCK_REALTIME));
    show("futex_wait bad clock", f2_wait(&a, 0, ~0u, F2_U32 | F2_PRIVATE, &now, CLOCK_BOOTTIME));
    show("futex_wait bad timeout pointer", f2_wait(&a, 0, ~0u, F2_U32 | F2_PRIVATE, (void *)8, CLOCK_MONOTONIC));
    show("futex_wait size 64", f2_wait(&a, 0, ~0u, 0x03 | F2_PRIVATE, NULL, 0));
    show("futex_wait unknown flag", f2_wait(&a, 0, ~0u, F2_U32 | 0x1000, NULL, 0));
    show("futex_wait value past 32 bits", f2_wait(&a, 1UL << 33, ~0u, F2_U32 | F2_PRIVATE, NULL, 0));
    show("futex_wait misaligned", f2_wait((uint32_t *)((char *)&a + 1), 0, ~0u, F2_U32 | F2_PRIVATE, NULL, 0));
    show("futex_wait bad address", f2_wait((uint32_t *)8, 0, ~0u, F2_U32 | F2_PRIVATE, NULL, 0));
    show("futex_wake no waiter", f2_wake(&a, ~0u, 1, F2_U32 | F2_PRIVATE));
    show("futex_wake nr 0", f2_wake(&a, ~0u, 0, F2_U32 | F2_PRIVATE));
    show("futex_wake mask 0", f2_wake(&a, 0, 1, F2_U32 | F2_PRIVATE));
    show("futex_wake size 64", f2_wake(&a, ~0u, 1, 0x03));
    show("futex_requeue flags", f2_requeue(v, 1, 1, 1));
    show("futex_requeue NULL", f2_requeue(NULL, 0, 1, 1));
    show("futex_requeue bad pointer", f2_requeue((void *)8, 0, 1, 1));
    v[0].val = 7;
    show("futex_requeue value differs", f2_requeue(v, 0, 1, 1));
    v[0].val = 0;
    v[1].flags = 0x03;
    show("futex_requeue entry size 64", f2_requeue(v, 0, 1, 1));
    v[1].flags = F2_U32 | F2_PRIVATE;
    show("futex_requeue nr_wake -1", f2_requeue(v, 0, -1, 1));
    return 0;
}
