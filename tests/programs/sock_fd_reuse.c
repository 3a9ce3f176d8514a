/* sock_fd_reuse: a socket's fd number closed and given to another socket,
 * replaced by dup2 and dup3, closed by close_range, by an exec (close-on-
 * exec) and by a child's exit, on TCP over 127.0.0.1. After each, the number
 * must name the new socket (its peer's port), and the old connection's peer
 * must read its end (EOF): dsim keeps copies of socket fds between calls
 * (syscalls/fdcache.c), and a copy kept too long would show the old socket,
 * or keep the old connection open.
 *
 * Usage: sock_fd_reuse   (run by its path: a child execs it again as
 * `sock_fd_reuse --sleep`, which sleeps 0.2 s)
 *
 * Prints one line per check and "ok"; exit 0 only if every check passed.
 * Run it only in a network namespace of its own: it refuses to run when lo
 * is not the only interface (netcheck.h). */
#include "netcheck.h"
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define P1 7401
#define P2 7402

static int failed;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", what, ok ? "yes" : "NO");
    if (!ok) failed = 1;
}

static int listener(int port)
{
    int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 8)) {
        perror("listener");
        exit(2);
    }
    return l;
}

/* A connection to port: the client's fd (made with flags) and, in *srv,
 * the server's end. */
static int dial(int l, int port, int flags, int *srv)
{
    int c = socket(AF_INET, SOCK_STREAM | flags, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a)) {
        perror("connect");
        exit(2);
    }
    *srv = accept(l, NULL, NULL);
    if (*srv < 0) {
        perror("accept");
        exit(2);
    }
    return c;
}

static int peer_port(int fd)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    return getpeername(fd, (struct sockaddr *)&a, &len) ? -1 : ntohs(a.sin_port);
}

/* The server end reads what was sent, then the end of the connection. */
static int reads_then_eof(int srv, const char *want)
{
    char buf[64];
    size_t n = strlen(want), got = 0;
    while (got < n) {
        ssize_t k = read(srv, buf + got, n - got);
        if (k <= 0) return 0;
        got += (size_t)k;
    }
    return !memcmp(buf, want, n) && read(srv, buf, sizeof buf) == 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--sleep")) {
        struct timespec ts = { 0, 200000000 };
        nanosleep(&ts, NULL);
        return 0;
    }
    require_lo_only();
    int l1 = listener(P1), l2 = listener(P2), s;

    /* close, and the number given to a new socket */
    int a = dial(l1, P1, 0, &s);
    check(peer_port(a) == P1, "a reaches port 7401");
    close(a);
    check(reads_then_eof(s, ""), "a's peer reads EOF after close");
    close(s);
    int b = dial(l2, P2, 0, &s);
    check(b == a, "b takes a's number");
    check(peer_port(b) == P2, "that number now reaches port 7402");
    int sb = s;

    /* dup2 and dup3 onto a socket's number */
    int sc, sd;
    int c = dial(l1, P1, 0, &sc);
    check(peer_port(c) == P1, "c reaches port 7401");
    check(dup2(b, c) == c, "dup2(b, c)");
    check(peer_port(c) == P2, "c now reaches port 7402");
    check(reads_then_eof(sc, ""), "c's old peer reads EOF");
    close(sc);
    int d = dial(l1, P1, 0, &sd);
    check(peer_port(d) == P1, "d reaches port 7401");
    check(dup3(b, d, O_CLOEXEC) == d, "dup3(b, d)");
    check(peer_port(d) == P2, "d now reaches port 7402");
    check(reads_then_eof(sd, ""), "d's old peer reads EOF");
    close(sd);
    close(c);
    close(d);
    check(write(b, "via b", 5) == 5, "write on b");
    close(b);
    check(reads_then_eof(sb, "via b"), "b's peer reads it, then EOF (c, d and b all closed)");
    close(sb);

    /* close_range */
    int e = dial(l1, P1, 0, &s);
    check(peer_port(e) == P1, "e reaches port 7401");
    check(syscall(SYS_close_range, e, e, 0) == 0, "close_range(e, e)");
    check(reads_then_eof(s, ""), "e's peer reads EOF");
    close(s);

    /* a child's copy: the parent closes its own, the child writes and exits */
    int f = dial(l1, P1, 0, &s);
    check(peer_port(f) == P1, "f reaches port 7401");
    pid_t pid = fork();
    if (pid == 0) {
        if (peer_port(f) != P1 || write(f, "child", 5) != 5) _exit(1);
        _exit(0);
    }
    close(f);
    int st;
    check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child wrote on f");
    check(reads_then_eof(s, "child"), "f's peer reads the child's bytes, then EOF at its exit");
    close(s);

    /* close-on-exec: the child uses its copy, then execs a sleep; the end
     * comes at the exec, while the sleep still runs (a high number, which
     * the loader's files of the new program do not take again) */
    int g0 = dial(l1, P1, 0, &s), g = dup3(g0, 50, O_CLOEXEC);
    close(g0);
    pid = fork();
    if (pid == 0) {
        if (peer_port(g) != P1 || write(g, "exec", 4) != 4) _exit(1);
        execl(argv[0], argv[0], "--sleep", (char *)NULL);
        _exit(127);
    }
    close(g);
    check(reads_then_eof(s, "exec"), "g's peer reads the child's bytes, then EOF");
    check(waitpid(pid, &st, WNOHANG) == 0, "the EOF came at the exec, before the child's exit");
    check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child exec'd and slept");
    close(s);

    /* the same numbers, again: nothing of the old sockets is left */
    int h = dial(l2, P2, 0, &s);
    check(peer_port(h) == P2, "a new socket on a reused number reaches port 7402");
    close(h);
    check(reads_then_eof(s, ""), "its peer reads EOF");
    close(s);
    printf("%s\n", failed ? "FAILED" : "ok");
    return failed;
}
