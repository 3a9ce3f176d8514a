/* What the System V IPC test programs share: one line per case, and the
 * times IPC_STAT reports read against the clock. */
#ifndef IPCCHECK_H
#define IPCCHECK_H
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void show(const char *what, long r)
{
    printf("%-44s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
    fflush(stdout);
}

/* A time from IPC_STAT against time(): "now" (within a second), "never"
 * (0), or "other". */
static __attribute__((unused)) const char *when(time_t t)
{
    time_t now = time(NULL);
    return t == 0 ? "never" : t <= now && now - t <= 1 ? "now" : "other";
}
#endif
