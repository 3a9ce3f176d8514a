/* When TCP sends leave with MSG_MORE and TCP_CORK, on 127.0.0.1 only
 * (require_lo_only): held bytes wait for a send without the flag, for
 * TCP_CORK's clearing, for TCP_NODELAY, for the writer's shutdown, or for
 * Linux's 200 ms ceiling; a sendfile pushes; full segments go at once (and
 * with MSG_MORE the rest follows them). One line per case: whether bytes
 * arrived within 100 ms, then how many came in the end. */
#include "netcheck.h"
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <time.h>

static int server, client;

static void pair(int listener, struct sockaddr_in *a)
{
    client = socket(AF_INET, SOCK_STREAM, 0);
    if (client < 0 || connect(client, (struct sockaddr *)a, sizeof *a) != 0) { perror("connect"); exit(1); }
    server = accept(listener, NULL, NULL);
    if (server < 0) { perror("accept"); exit(1); }
}

static void unpair(void)
{
    close(client);
    close(server);
}

static bool arrives(int ms)
{
    struct pollfd p = { server, POLLIN, 0 };
    return poll(&p, 1, ms) == 1;
}

/* Everything the server can read within a second, whole. */
static long drain(void)
{
    static char buf[1 << 18];
    long got = 0;
    while (arrives(1000)) {
        ssize_t n = recv(server, buf, sizeof buf, MSG_DONTWAIT);
        if (n <= 0) break;
        got += n;
    }
    return got;
}

static void show(const char *what, bool soon, long total)
{
    printf("%-44s %s, %ld bytes\n", what, soon ? "at once" : "held", total);
    fflush(stdout);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set(int name, int v) { setsockopt(client, IPPROTO_TCP, name, &v, sizeof v); }

int main(void)
{
    require_lo_only();
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 8) || getsockname(l, (struct sockaddr *)&a, &len)) {
        perror("listener");
        return 1;
    }

    pair(l, &a);
    send(client, "hello", 5, MSG_MORE);
    bool soon = arrives(100);
    send(client, "!", 1, 0);
    show("MSG_MORE, then a send without it", soon, drain());

    double t0 = now_s();
    send(client, "hello", 5, MSG_MORE);
    soon = arrives(100);
    bool late = arrives(1000);
    double took = now_s() - t0;
    show("MSG_MORE alone", soon, drain());
    printf("%-44s %s\n", "  sent by the ceiling", late && took > 0.15 && took < 0.5 ? "after about 200 ms" : "no");
    unpair();

    pair(l, &a);
    set(TCP_CORK, 1);
    write(client, "ab", 2);
    write(client, "cd", 2);
    soon = arrives(100);
    set(TCP_CORK, 0);
    show("TCP_CORK, two writes, uncorked", soon, drain());

    set(TCP_CORK, 1);
    write(client, "ef", 2);
    soon = arrives(100);
    set(TCP_NODELAY, 1);
    show("TCP_CORK, then TCP_NODELAY", soon, drain());
    set(TCP_NODELAY, 0);

    write(client, "gh", 2);
    soon = arrives(100);
    shutdown(client, SHUT_WR);
    show("TCP_CORK, then shutdown", soon, drain());
    unpair();

    static char big[100000];
    pair(l, &a);
    send(client, big, sizeof big, MSG_MORE);
    soon = arrives(100);
    show("MSG_MORE, 100000 bytes", soon, drain());
    set(TCP_CORK, 1);
    write(client, big, sizeof big);
    soon = arrives(100);
    long first = soon ? (long)recv(server, big, sizeof big, MSG_DONTWAIT) : 0;
    printf("%-44s %s\n", "TCP_CORK, 100000 bytes: full segments go", first > 0 && first < (long)sizeof big ? "yes" : "no");
    set(TCP_CORK, 0);
    drain();
    unpair();

    pair(l, &a);
    int f = open("/proc/self/exe", O_RDONLY);
    send(client, "x", 1, MSG_MORE);
    off_t off = 0;
    sendfile(client, f, &off, 10);
    soon = arrives(100);
    show("MSG_MORE, then sendfile", soon, drain());
    close(f);
    unpair();
    return 0;
}
