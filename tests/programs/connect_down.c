/* TCP connects to machines that are not there yet, not listening, or gone,
 * as Linux's SYN retransmissions make them end. Usage:
 *   connect_down server PORT          listen on PORT and accept one client
 *   connect_down late HOST PORT       non-blocking connect, poll for POLLOUT
 *   connect_down blocking HOST PORT   blocking connect
 * Each client prints the result and the seconds (CLOCK_MONOTONIC) it took. */
#include "netcheck.h"
#include <fcntl.h>
#include <poll.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    require_lo_only();
    if (argc == 3 && !strcmp(argv[1], "server")) {
        int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
        setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])) };
        if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 4)) return 1;
        int c = accept(l, NULL, NULL);
        printf("server accepted %d\n", c >= 0);
        return 0;
    }
    if (argc != 4) return 2;
    struct sockaddr_storage a;
    socklen_t alen = resolve(argv[2], atoi(argv[3]), AF_INET, &a);
    if (!alen) return 1;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    double t0 = now();
    if (!strcmp(argv[1], "late")) {
        fcntl(s, F_SETFL, O_NONBLOCK);
        int r = connect(s, (struct sockaddr *)&a, alen);
        printf("connect %s\n", r == 0 ? "0" : strerrorname_np(errno));
        struct pollfd p = { s, POLLOUT, 0 };
        int n = poll(&p, 1, 300000);
        int err = -1;
        socklen_t len = sizeof err;
        getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len);
        printf("poll %d revents_out %d so_error %s after %.0f s\n", n, !!(p.revents & POLLOUT),
               err ? strerrorname_np(err) : "0", now() - t0);
    } else {
        int r = connect(s, (struct sockaddr *)&a, alen);
        printf("connect %s after %.0f s\n", r == 0 ? "0" : strerrorname_np(errno), now() - t0);
    }
    return 0;
}
