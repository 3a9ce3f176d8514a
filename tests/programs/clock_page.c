/* clock_page: clock reads through libc (the vDSO where there is one), as
 * dsim's clock page answers them (clock_reads = page), checked for what
 * Linux promises, one line per case:
 *   - CLOCK_MONOTONIC never goes back over many reads, nor do the raw,
 *     coarse and boot-time clocks; CLOCK_REALTIME, gettimeofday and time
 *     agree;
 *   - a busy wait for the clock to pass a deadline ends;
 *   - an unknown clock id is EINVAL, a bad address to the system call
 *     EFAULT, the CPU clocks answer;
 *   - threads reading the clock each see it go forward;
 *   - a forked child and an exec'd one read a clock at or past their
 *     parent's last reading.
 * "clock_page segv": a bad address given to libc's clock_gettime kills the
 * caller with SIGSEGV where the vDSO answers (natively, and under dsim with
 * clock_reads = page), as the kernel's vDSO writes it in user space.
 * "clock_page child NS": the exec'd child (NS: the parent's last reading). */
#include "selfcheck.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t ns(clockid_t c)
{
    struct timespec ts;
    if (clock_gettime(c, &ts) != 0) { perror("clock_gettime"); exit(3); }
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int forward(clockid_t c, int n)
{
    uint64_t last = ns(c);
    for (int i = 0; i < n; i++) {
        uint64_t v = ns(c);
        if (v < last) return 0;
        last = v;
    }
    return 1;
}

static void *reader(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)forward(CLOCK_MONOTONIC, 300);
}

static int child(uint64_t parent_last)
{
    uint64_t v = ns(CLOCK_MONOTONIC);
    CHECK(v >= parent_last, "the exec'd child's clock is behind its parent's");
    CHECK(forward(CLOCK_MONOTONIC, 100), "the exec'd child's clock went back");
    printf("exec child: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "child")) return child(strtoull(argv[2], NULL, 10));
    if (argc > 1 && !strcmp(argv[1], "segv")) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            int r = clock_gettime(CLOCK_MONOTONIC, (struct timespec *)8);
            printf("bad address through libc: returned %d (%s)\n", r, r ? strerror(errno) : "no error");
            _exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        if (WIFSIGNALED(st)) printf("bad address through libc: %s\n", strsignal(WTERMSIG(st)));
        printf("ok\n");
        return 0;
    }

    CHECK(forward(CLOCK_MONOTONIC, 2000), "CLOCK_MONOTONIC went back");
    CHECK(forward(CLOCK_MONOTONIC_RAW, 200), "CLOCK_MONOTONIC_RAW went back");
    CHECK(forward(CLOCK_MONOTONIC_COARSE, 200), "CLOCK_MONOTONIC_COARSE went back");
    CHECK(forward(CLOCK_BOOTTIME, 200), "CLOCK_BOOTTIME went back");
    CHECK(ns(CLOCK_BOOTTIME) >= ns(CLOCK_MONOTONIC) - 1000000, "boot time behind the monotonic clock");
    printf("monotonic clocks: ok\n");

    uint64_t r0 = ns(CLOCK_REALTIME);
    struct timeval tv;
    CHECK(gettimeofday(&tv, NULL) == 0, "gettimeofday failed");
    time_t t1;
    time_t t0 = time(&t1);
    uint64_t r1 = ns(CLOCK_REALTIME);
    uint64_t tv_ns = (uint64_t)tv.tv_sec * 1000000000ULL + (uint64_t)tv.tv_usec * 1000;
    CHECK(tv_ns + 1000 > r0 && tv_ns <= r1, "gettimeofday disagrees with CLOCK_REALTIME");
    /* Linux's time() is the coarse clock's second: a tick behind, it may
     * still be the one before CLOCK_REALTIME's. */
    CHECK(t0 == t1 && (uint64_t)t0 + 1 >= r0 / 1000000000ULL && (uint64_t)t0 <= r1 / 1000000000ULL,
          "time disagrees with CLOCK_REALTIME");
    CHECK(forward(CLOCK_REALTIME_COARSE, 100) && ns(CLOCK_REALTIME) > 1500000000ULL * 1000000000ULL,
          "CLOCK_REALTIME_COARSE");
    printf("realtime, gettimeofday, time: ok\n");

    uint64_t deadline = ns(CLOCK_MONOTONIC) + 20000000;     /* 20 ms */
    unsigned long spins = 0;
    while (ns(CLOCK_MONOTONIC) < deadline) spins++;
    CHECK(spins > 0, "the busy wait did not wait");
    printf("busy wait of 20 ms: ended\n");

    struct timespec ts;
    errno = 0;
    CHECK(clock_gettime((clockid_t)12345, &ts) == -1 && errno == EINVAL, "an unknown clock id is not EINVAL");
    errno = 0;
    CHECK(clock_gettime((clockid_t)16, &ts) == -1 && errno == EINVAL, "clock id 16 is not EINVAL");
    errno = 0;
    CHECK(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, (void *)8) == -1 && errno == EFAULT,
          "a bad address to the system call is not EFAULT");
    CHECK(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 && clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0,
          "the CPU clocks");
    CHECK(clock_getres(CLOCK_MONOTONIC, &ts) == 0, "clock_getres");
    printf("errors and other clocks: ok\n");

    pthread_t th[3];
    for (int i = 0; i < 3; i++) pthread_create(&th[i], NULL, reader, NULL);
    for (int i = 0; i < 3; i++) {
        void *ok;
        pthread_join(th[i], &ok);
        CHECK(ok, "a thread saw the clock go back");
    }
    printf("threads: ok\n");

    fflush(stdout);
    uint64_t before = ns(CLOCK_MONOTONIC);
    pid_t pid = fork();
    if (pid == 0) _exit(ns(CLOCK_MONOTONIC) >= before && forward(CLOCK_MONOTONIC, 100) ? 0 : 1);
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a forked child's clock is behind or went back");
    printf("fork child: ok\n");

    fflush(stdout);
    char arg[32];
    snprintf(arg, sizeof arg, "%llu", (unsigned long long)ns(CLOCK_MONOTONIC));
    pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], "child", arg, (char *)NULL);
        _exit(127);
    }
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the exec'd child failed");

    printf(failures ? "FAILED\n" : "ok\n");
    return failures != 0;
}
