/* dsim remembers which fd numbers name a plain file, whose reads it passes
 * to the kernel at once (syscalls/fdcache.c). Here each such number, once
 * read, is given to the read end of an empty pipe (by close and pipe2, dup2,
 * dup3, close_range), and a child writes to the pipe only later: the read
 * must wait for it. Were the fact kept past the change, dsim would pass the
 * read to the kernel, which would block it with the writer never run.
 * Prints one line per case. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/close_range.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char path[] = "/tmp/plain_fd_reuse.XXXXXX";

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* A plain file open at a fresh number, read once (dsim notes the fact). */
static int plain_read(void)
{
    int fd = open(path, O_RDONLY);
    char c;
    if (fd < 0) die("open");
    if (read(fd, &c, 1) != 1 || c != 'f') die("read file");
    return fd;
}

/* A child that writes `what` to w after 20 ms; the parent keeps no write end. */
static pid_t late_writer(int w, int r, char what)
{
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        close(r);
        nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
        if (write(w, &what, 1) != 1) _exit(1);
        _exit(0);
    }
    close(w);
    return pid;
}

/* Reads fd, now an empty pipe's read end: waits for the writer's byte. */
static void wait_read(const char *name, int fd, pid_t writer, char want)
{
    char c = 0;
    ssize_t n = read(fd, &c, 1);
    int st;
    waitpid(writer, &st, 0);
    printf("%s: fd %s, read %zd byte '%c', writer %s\n", name, n == 1 && c == want ? "reused" : "WRONG", n,
           c ? c : '?', WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "ok" : "failed");
    close(fd);
}

int main(void)
{
    int tmp = mkstemp(path);
    if (tmp < 0 || write(tmp, "f", 1) != 1) die("mkstemp");
    close(tmp);
    int p[2];

    /* close, then pipe2 takes the lowest free number: the file's. */
    int fd = plain_read();
    close(fd);
    if (pipe2(p, 0) != 0) die("pipe2");
    if (p[0] != fd) printf("close: pipe got fd %d, not %d\n", p[0], fd);
    wait_read("close", p[0], late_writer(p[1], p[0], 'a'), 'a');

    /* dup2 of a pipe's read end onto the file's number. */
    fd = plain_read();
    if (pipe2(p, 0) != 0) die("pipe2");
    if (dup2(p[0], fd) != fd) die("dup2");
    close(p[0]);
    wait_read("dup2", fd, late_writer(p[1], fd, 'b'), 'b');

    /* dup3 likewise. */
    fd = plain_read();
    if (pipe2(p, 0) != 0) die("pipe2");
    if (dup3(p[0], fd, O_CLOEXEC) != fd) die("dup3");
    close(p[0]);
    wait_read("dup3", fd, late_writer(p[1], fd, 'c'), 'c');

    /* close_range over the file's number, then pipe2. */
    fd = plain_read();
    if (syscall(SYS_close_range, fd, fd, 0) != 0) die("close_range");
    if (pipe2(p, 0) != 0) die("pipe2");
    if (p[0] != fd) printf("close_range: pipe got fd %d, not %d\n", p[0], fd);
    wait_read("close_range", p[0], late_writer(p[1], p[0], 'd'), 'd');

    unlink(path);
    return 0;
}
