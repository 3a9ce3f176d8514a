/* TCP and UDP sockets at their edges, on 127.0.0.1 only (require_lo_only):
 * errors for NULL addresses, unconnected sends and receives, the error
 * queue, MSG_OOB on UDP, connect(AF_UNSPEC), multicast options on TCP, a
 * bad recvfrom address on TCP, UDP-Lite, and low ports for a user without
 * the capability. One line per case. */
#include "netcheck.h"
#include <linux/capability.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/syscall.h>

static void show(const char *what, long r)
{
    printf("%-40s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
    fflush(stdout);
}

static volatile sig_atomic_t sigpipes;
static void on_pipe(int sig) { (void)sig; sigpipes++; }

static struct sockaddr_in at(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

int main(void)
{
    require_lo_only();
    signal(SIGPIPE, on_pipe);
    char buf[64];
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int t = socket(AF_INET, SOCK_STREAM, 0), u = socket(AF_INET, SOCK_DGRAM, 0);
    show("getsockname NULL address", getsockname(t, NULL, &len));
    len = 0;
    show("getsockname NULL address, zero length", getsockname(t, NULL, &len));
    show("getsockname NULL length", getsockname(t, (struct sockaddr *)&a, NULL));
    show("getpeername unconnected", getpeername(t, (struct sockaddr *)&a, &len));
    show("send unconnected tcp", send(t, "x", 1, 0));
    printf("%-40s %d\n", "  SIGPIPE", (int)sigpipes);
    show("send unconnected tcp, MSG_NOSIGNAL", send(t, "x", 1, MSG_NOSIGNAL));
    printf("%-40s %d\n", "  SIGPIPE", (int)sigpipes);
    show("write unconnected tcp", write(t, "x", 1));
    show("recv unconnected tcp", recv(t, buf, 1, 0));
    show("recv unconnected tcp, nonblocking", recv(t, buf, 1, MSG_DONTWAIT));
    show("send udp no address", send(u, "x", 1, 0));
    struct sockaddr_in dst = at(9);
    show("sendto udp MSG_OOB", sendto(u, "x", 1, MSG_OOB, (struct sockaddr *)&dst, sizeof dst));
    show("recv udp MSG_OOB", recv(u, buf, 1, MSG_OOB | MSG_DONTWAIT));

    /* A connected pair. */
    int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in la = at(5599);
    show("bind listener", bind(l, (struct sockaddr *)&la, sizeof la));
    show("listen", listen(l, 4));
    int c = socket(AF_INET, SOCK_STREAM, 0);
    show("connect", connect(c, (struct sockaddr *)&la, sizeof la));
    int s = accept(l, NULL, NULL);
    show("accept", s >= 0 ? 0 : -1);
    show("recv errqueue tcp", recv(c, buf, sizeof buf, MSG_ERRQUEUE));
    show("send", send(c, "hello", 5, 0));
    len = sizeof a;
    show("recvfrom tcp, bad address pointer", recvfrom(s, buf, sizeof buf, 0, (struct sockaddr *)8, &len));
    printf("%-40s %d\n", "  address length", (int)len);
    struct ip_mreq mreq = { .imr_multiaddr.s_addr = htonl(0xe0000001), .imr_interface.s_addr = htonl(INADDR_LOOPBACK) };
    show("IP_ADD_MEMBERSHIP on tcp", setsockopt(c, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof mreq));
    show("IP_DROP_MEMBERSHIP on tcp", setsockopt(c, IPPROTO_IP, IP_DROP_MEMBERSHIP, &mreq, sizeof mreq));
    struct sockaddr unspec = { .sa_family = AF_UNSPEC };
    show("connect AF_UNSPEC tcp", connect(c, &unspec, sizeof unspec));
    show("getpeername after dissolve", getpeername(c, (struct sockaddr *)&a, &len));
    show("connect AF_UNSPEC unconnected tcp", connect(t, &unspec, sizeof unspec));

    /* UDP-Lite works as UDP. */
    int ul = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE);
    show("socket udplite", ul >= 0 ? 0 : -1);
    struct sockaddr_in ua = at(5600);
    show("bind udplite", bind(ul, (struct sockaddr *)&ua, sizeof ua));
    show("sendto udplite", sendto(ul, "lite", 4, 0, (struct sockaddr *)&ua, sizeof ua));
    show("recv udplite", recv(ul, buf, sizeof buf, 0));

    /* Ports below 1024 need CAP_NET_BIND_SERVICE. */
    int p = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in low = at(80);
    show("bind port 80 as root", bind(p, (struct sockaddr *)&low, sizeof low));
    close(p);
    if (fork() == 0) {
        if (setgid(65534) || setuid(65534)) _exit(1);
        int q = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in low2 = at(81), high = at(8081);
        show("bind port 81 as nobody", bind(q, (struct sockaddr *)&low2, sizeof low2));
        show("bind port 8081 as nobody", bind(q, (struct sockaddr *)&high, sizeof high));
        _exit(0);
    }
    wait(NULL);
    return 0;
}
