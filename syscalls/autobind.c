/* Autobound unix socket names, drawn from the machine's entropy.
 *
 * A unix socket bound with an address of its family alone (bind with
 * addrlen 2), or connected or sending while unbound with SO_PASSCRED set,
 * gets a name from the kernel: an abstract "\0" and five hex digits, tried
 * from a random 20-bit number upwards until one is free (unix_autobind,
 * Linux 5.19 on; a global counter before). So the name, which getsockname
 * and the peer's recvfrom and getpeername show, was another in every run.
 * dsim makes the same draw from the machine's entropy and binds that name
 * through its copy of the socket: the abstract namespace is the socket's
 * network namespace, the machine's, so only its own names can collide. */
#include "syscalls/sys.h"
#include "world/tracer.h"
#include "net/sim/netsim.h"
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define NAME_SPACE 0x100000u    /* five hex digits */

/* Whether the copy's socket is a unix one, and whether it has a name. */
static bool unix_socket(int copy)
{
    int domain = 0;
    socklen_t len = sizeof domain;
    return getsockopt(copy, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_UNIX;
}

static bool unnamed(int copy)
{
    struct sockaddr_un own;
    socklen_t len = sizeof own;
    return getsockname(copy, (struct sockaddr *)&own, &len) == 0 && len <= offsetof(struct sockaddr_un, sun_path);
}

long autobind_names(uint32_t after, long (*try_bind)(void *ctx, const struct sockaddr_un *a, unsigned len), void *ctx)
{
    uint32_t order = after % NAME_SPACE, last = order;
    for (;;) {
        order = (order + 1) % NAME_SPACE;
        struct sockaddr_un name = { .sun_family = AF_UNIX };
        char digits[8];
        snprintf(digits, sizeof digits, "%05x", order);
        memcpy(name.sun_path + 1, digits, 5);
        long r = try_bind(ctx, &name, offsetof(struct sockaddr_un, sun_path) + 6);
        if (r != -EADDRINUSE) return r;
        if (order == last) return -ENOSPC;
    }
}

static long bind_copy(void *ctx, const struct sockaddr_un *a, unsigned len)
{
    return bind(*(int *)ctx, (const struct sockaddr *)a, len) == 0 ? 0 : -errno;
}

/* Binds the copy's socket to the first free name after a drawn one. */
static long autobind(struct world *w, struct thread *t, int copy)
{
    uint32_t order;
    random_fill(w, t, &order, sizeof order);
    return autobind_names(order, bind_copy, &copy);
}

bool autobind_on_bind(struct world *w, struct thread *t, enum sys_action *a)
{
    sa_family_t family;
    if (ARG2(t) != sizeof family || mem_read(t->tid, ARG1(t), &family, sizeof family) != 0 || family != AF_UNIX)
        return false;
    struct stat st;
    int copy = fd_lend(w, t, (int)ARG0(t), &st);
    if (copy < 0) return false;                     /* the kernel says why (EBADF) */
    if (!S_ISSOCK(st.st_mode) || !unix_socket(copy)) {
        fd_return(t, copy);
        return false;
    }
    /* A socket with a name keeps it: the call succeeds, as Linux's does. */
    long r = unnamed(copy) ? autobind(w, t, copy) : 0;
    fd_return(t, copy);
    *a = emulate(t, r);
    return true;
}

void autobind_before_send(struct world *w, struct thread *t, int fd)
{
    struct stat st;
    int copy = fd_lend(w, t, fd, &st);
    if (copy < 0) return;
    int on = 0;
    socklen_t len = sizeof on;
    /* Only with SO_PASSCRED does Linux name the sender (its peer is told
     * who sent); without it, the socket stays unnamed. A simulated socket's
     * unix socket underneath is not the tracee's to name. */
    if (S_ISSOCK(st.st_mode) && !(w->net && netsim_lookup(w, st.st_ino)) && getsockopt(copy, SOL_SOCKET, SO_PASSCRED, &on, &len) == 0 && on &&
        unix_socket(copy) && unnamed(copy))
        autobind(w, t, copy);
    fd_return(t, copy);
}
