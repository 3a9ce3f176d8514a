/* clock_readings: reads CLOCK_REALTIME and CLOCK_MONOTONIC at the start,
 * then after each of several sleeps, printing "R M" per reading (seconds
 * with 6 decimals), and exits 1 if the monotonic clock ever went back.
 * Under dsim with a clock offset, drift and a jump, the wall clock follows
 * the configured skew while the monotonic clock only moves forward. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 4;
    double last_mono = now(CLOCK_MONOTONIC);
    printf("%.6f %.6f\n", now(CLOCK_REALTIME), last_mono);
    for (int i = 0; i < steps; i++) {
        struct timespec ten = { 10, 0 };
        nanosleep(&ten, NULL);
        double r = now(CLOCK_REALTIME), m = now(CLOCK_MONOTONIC);
        printf("%.6f %.6f\n", r, m);
        if (m < last_mono) { printf("monotonic went back\n"); return 1; }
        last_mono = m;
    }
    return 0;
}
