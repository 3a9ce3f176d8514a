/* Calls that Linux refuses at once must not wait under dsim: a read of a
 * pipe's write end and a write to its read end (EBADF), a read of an fd
 * opened write-only, accept on a datagram socket (EOPNOTSUPP) and on a
 * stream socket that does not listen (EINVAL). One line per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static void show(const char *what, long r)
{
    printf("%-36s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
}

int main(void)
{
    int p[2], fifo_w;
    char c = 'x', buf[4];
    if (pipe(p)) return 1;
    show("read pipe write end", read(p[1], buf, 1));
    show("write pipe read end", write(p[0], &c, 1));
    show("readv pipe write end", readv(p[1], &(struct iovec){ buf, 1 }, 1));
    char fifo[4096];
    snprintf(fifo, sizeof fifo, "%s/fd_direction.fifo", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    unlink(fifo);
    if (mkfifo(fifo, 0600)) return 1;
    int fifo_r = open(fifo, O_RDONLY | O_NONBLOCK);
    fifo_w = open(fifo, O_WRONLY);
    show("read fifo opened write-only", read(fifo_w, buf, 1));
    close(fifo_r);
    close(fifo_w);
    unlink(fifo);
    int d = socket(AF_UNIX, SOCK_DGRAM, 0), s = socket(AF_UNIX, SOCK_STREAM, 0);
    show("accept datagram socket", accept(d, NULL, NULL));
    show("accept4 datagram socket", accept4(d, NULL, NULL, SOCK_CLOEXEC));
    show("accept stream not listening", accept(s, NULL, NULL));
    show("recv stream not connected", recv(s, buf, 1, 0));
    return 0;
}
