/* compute_burst: long computations between system calls.
 *
 *   compute_burst calibrate
 *       Prints how many rounds of the work loop take 100 ms of this
 *       process's CPU time (natively: under dsim CPU clocks are virtual).
 *   compute_burst run ROUNDS [BURSTS]
 *       BURSTS times (default 1): ROUNDS rounds of the loop with no system
 *       call, then one line "burst I: CHECKSUM". The last line is "ok".
 *
 * The checksum depends on ROUNDS only, so the output is the same natively
 * and under dsim, on every host. Exit 2 on a usage error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One round: a few dozen dependent multiply-adds the compiler cannot fold. */
static uint64_t work(uint64_t x, long rounds)
{
    for (long r = 0; r < rounds; r++)
        for (int i = 0; i < 64; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL + (x >> 29);
    return x;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "calibrate")) {
        long rounds = 1000;
        for (;;) {
            double t0 = cpu_s();
            volatile uint64_t sink = work(1, rounds);
            (void)sink;
            double took = cpu_s() - t0;
            if (took >= 0.2) {
                printf("%ld\n", (long)((double)rounds * 0.1 / took));
                return 0;
            }
            rounds *= 2;
        }
    }
    if (argc >= 3 && !strcmp(argv[1], "run")) {
        long rounds = atol(argv[2]), bursts = argc > 3 ? atol(argv[3]) : 1;
        if (rounds < 1 || bursts < 1) return 2;
        uint64_t x = 1;
        for (long b = 0; b < bursts; b++) {
            x = work(x, rounds);
            printf("burst %ld: %016llx\n", b, (unsigned long long)x);
            fflush(stdout);
        }
        printf("ok\n");
        return 0;
    }
    fprintf(stderr, "usage: compute_burst calibrate | run ROUNDS [BURSTS]\n");
    return 2;
}
