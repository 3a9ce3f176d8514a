/* netns_leftovers: what a machine's network namespace shows of earlier
 * machines, and a socket that outlives its process. Prints lo's line of
 * /proc/net/dev, how many unix sockets /proc/net/unix lists, and whether
 * an abstract unix name is free (bind). Then binds that name on a socket
 * that is in flight on itself (its fd queued in its own receive queue) and
 * exits: the kernel frees it only at its next unix garbage collection, so
 * the name can still be taken when the next machine starts. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char NAME[] = "\0dsim-netns-leftover";

static int bind_name(int s)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    memcpy(a.sun_path, NAME, sizeof NAME - 1);
    return bind(s, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + sizeof NAME - 1));
}

int main(void)
{
    char line[512];
    FILE *f = fopen("/proc/net/dev", "r");
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "lo:")) printf("dev %s", line);
    if (f) fclose(f);
    int n = 0;
    f = fopen("/proc/net/unix", "r");
    while (f && fgets(line, sizeof line, f)) n++;
    if (f) fclose(f);
    printf("unix sockets %d\n", n - 1);
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) != 0) { perror("socketpair"); return 1; }
    printf("bind %s\n", bind_name(pair[1]) == 0 ? "ok" : strerrorname_np(errno));
    /* pair[1]'s own fd, sent to it: a cycle only the collector breaks. */
    char byte = 'x', ctl[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { &byte, 1 };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &pair[1], sizeof(int));
    printf("send %s\n", sendmsg(pair[0], &msg, 0) == 1 ? "ok" : strerrorname_np(errno));
    return 0;
}
