/* sock_nonblock: a TCP socket's O_NONBLOCK, however it is set, decides
 * whether a read with nothing to read fails (EAGAIN) or waits: socket and
 * accept4 with SOCK_NONBLOCK, fcntl(F_SETFL) on and off, ioctl(FIONBIO) on
 * and off, an F_SETFL the kernel refuses (O_DIRECT: EINVAL, nothing
 * changed), and a plain accept (blocking whatever the listener is). The
 * client writes one byte each time the server waits, after 10 ms; the
 * server prints what each read got. Over 127.0.0.1 in a namespace with only
 * lo. */
#include "netcheck.h"
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>

#define PORT 7340

static void show(const char *what, long r, const char *buf)
{
    if (r < 0) printf("%-34s -1 %s\n", what, strerrorname_np(errno));
    else printf("%-34s %ld %.*s\n", what, r, (int)(r > 0 ? r : 0), buf);
}

static int nonblocking(int fd) { return (fcntl(fd, F_GETFL) & O_NONBLOCK) != 0; }

int main(void)
{
    require_lo_only();
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 4)) { perror("listen"); return 1; }
    char buf[16];
    show("accept, nonblocking listener", accept(l, NULL, NULL), buf);
    int go[2];
    if (pipe(go)) return 1;
    pid_t child = fork();
    if (child == 0) {
        close(go[1]);
        int c = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(c, (struct sockaddr *)&a, sizeof a)) _exit(2);
        int c2 = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(c2, (struct sockaddr *)&a, sizeof a)) _exit(2);
        char what;
        struct timespec pause = { 0, 10000000 };
        while (read(go[0], &what, 1) == 1) {        /* the server waits: send after a while */
            nanosleep(&pause, NULL);
            if (write(what == 'W' ? c2 : c, &what, 1) != 1) _exit(2);
        }
        _exit(0);
    }
    close(go[0]);
    struct pollfd p = { l, POLLIN, 0 };
    poll(&p, 1, -1);
    int s = accept4(l, NULL, NULL, SOCK_NONBLOCK);
    printf("accept4 SOCK_NONBLOCK: nonblocking %d\n", nonblocking(s));
    show("read, nonblocking", read(s, buf, sizeof buf), buf);
    fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
    printf("F_SETFL off: nonblocking %d\n", nonblocking(s));
    if (write(go[1], "x", 1) != 1) return 1;
    show("read, blocking", read(s, buf, sizeof buf), buf);
    int on = 1, off = 0;
    ioctl(s, FIONBIO, &on);
    printf("FIONBIO on: nonblocking %d\n", nonblocking(s));
    show("read, nonblocking", read(s, buf, sizeof buf), buf);
    ioctl(s, FIONBIO, &off);
    if (write(go[1], "y", 1) != 1) return 1;
    show("read, blocking", read(s, buf, sizeof buf), buf);
    show("F_SETFL O_NONBLOCK|O_DIRECT", fcntl(s, F_SETFL, O_NONBLOCK | O_DIRECT), buf);
    printf("after the refused F_SETFL: nonblocking %d\n", nonblocking(s));
    if (write(go[1], "z", 1) != 1) return 1;
    show("read, blocking", read(s, buf, sizeof buf), buf);
    fcntl(s, F_SETFL, O_NONBLOCK);
    show("recv, nonblocking", recv(s, buf, sizeof buf, 0), buf);
    poll(&p, 1, -1);
    int s2 = accept(l, NULL, NULL);
    printf("accept: nonblocking %d\n", nonblocking(s2));
    if (write(go[1], "W", 1) != 1) return 1;
    show("read, blocking (second)", read(s2, buf, sizeof buf), buf);
    close(go[1]);
    int st;
    waitpid(child, &st, 0);
    printf("child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    printf("ok\n");
    return 0;
}
