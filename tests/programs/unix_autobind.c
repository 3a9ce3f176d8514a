/* A unix socket's autobound name: bind with the family alone, twice (the
 * second keeps the first name), a second socket, a stream listener, and a
 * datagram sent while unbound with SO_PASSCRED (named on the way, as the
 * receiver sees), one sent without it (stays unnamed), and a connect with
 * SO_PASSCRED. Prints what Linux promises (an abstract "\0" and five hex
 * digits, 8 bytes of address, distinct names, the first kept), the same
 * natively and under dsim; with "names", the names themselves, which a
 * seed pins under dsim. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int names;       /* print the names */

/* "abstract, 5 hex digits, len 8" or what it is instead. */
static void show(const char *what, const struct sockaddr_un *a, socklen_t len)
{
    size_t path = len > offsetof(struct sockaddr_un, sun_path) ? len - offsetof(struct sockaddr_un, sun_path) : 0;
    int hex = path == 6 && a->sun_path[0] == 0;
    for (size_t i = 1; hex && i < 6; i++)
        hex = (a->sun_path[i] >= '0' && a->sun_path[i] <= '9') || (a->sun_path[i] >= 'a' && a->sun_path[i] <= 'f');
    if (path == 0) printf("%s: unnamed (len %u)\n", what, (unsigned)len);
    else if (hex) printf("%s: abstract, 5 hex digits, len %u\n", what, (unsigned)len);
    else printf("%s: other name, len %u\n", what, (unsigned)len);
    if (names && path == 6) printf("  name @%.5s\n", a->sun_path + 1);
}

static socklen_t name_of(int fd, struct sockaddr_un *a)
{
    socklen_t len = sizeof *a;
    memset(a, 0, sizeof *a);
    if (getsockname(fd, (struct sockaddr *)a, &len) != 0) perror("getsockname");
    return len;
}

static int autobind(int fd)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    return bind(fd, (struct sockaddr *)&a, sizeof a.sun_family);
}

int main(int argc, char **argv)
{
    names = argc > 1 && !strcmp(argv[1], "names");
    struct sockaddr_un a1, a2, again, from;
    int one = 1;

    int d1 = socket(AF_UNIX, SOCK_DGRAM, 0), d2 = socket(AF_UNIX, SOCK_DGRAM, 0);
    show("unbound", &a1, name_of(d1, &a1));
    printf("bind: %d\n", autobind(d1));
    socklen_t l1 = name_of(d1, &a1);
    show("first", &a1, l1);
    printf("bind again: %d\n", autobind(d1));
    socklen_t la = name_of(d1, &again);
    printf("kept: %s\n", la == l1 && !memcmp(&a1, &again, l1) ? "yes" : "no");
    printf("second bind: %d\n", autobind(d2));
    socklen_t l2 = name_of(d2, &a2);
    show("second", &a2, l2);
    printf("distinct: %s\n", l1 != l2 || memcmp(&a1, &a2, l1) ? "yes" : "no");

    /* A sender unbound, with and without SO_PASSCRED. */
    for (int cred = 0; cred <= 1; cred++) {
        int s = socket(AF_UNIX, SOCK_DGRAM, 0);
        if (cred) setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
        printf("send (SO_PASSCRED %d): %zd\n", cred, sendto(s, "x", 1, 0, (struct sockaddr *)&a1, l1));
        char c;
        socklen_t lf = sizeof from;
        memset(&from, 0, sizeof from);
        printf("received: %zd\n", recvfrom(d1, &c, 1, 0, (struct sockaddr *)&from, &lf));
        show(cred ? "sender seen, SO_PASSCRED" : "sender seen", &from, lf);
        close(s);
    }

    /* A stream listener autobound, a client with SO_PASSCRED connecting. */
    int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
    printf("listener bind: %d\n", autobind(l));
    printf("listen: %d\n", listen(l, 1));
    struct sockaddr_un la3, lc;
    socklen_t ll = name_of(l, &la3);
    show("listener", &la3, ll);
    setsockopt(c, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    printf("connect: %d\n", connect(c, (struct sockaddr *)&la3, ll));
    show("client, SO_PASSCRED", &lc, name_of(c, &lc));
    int acc = accept(l, NULL, NULL);
    struct sockaddr_un peer;
    socklen_t lp = sizeof peer;
    getpeername(acc, (struct sockaddr *)&peer, &lp);
    printf("peer seen: %s\n", lp == name_of(c, &lc) && !memcmp(&peer, &lc, lp) ? "the client's name" : "another");
    puts("ok");
    return 0;
}
