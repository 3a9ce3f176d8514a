#include "world/tracer.h"
#include "world/world.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL         /* Linux 6.9: a pidfd for one thread */
#endif

int tracer_getregs(pid_t tid, struct user_regs_struct *r) { return (int)ptrace(PTRACE_GETREGS, tid, 0, r); }
int tracer_setregs(pid_t tid, const struct user_regs_struct *r) { return (int)ptrace(PTRACE_SETREGS, tid, 0, r); }
int tracer_cont(pid_t tid, int sig) { return (int)ptrace(PTRACE_CONT, tid, 0, (long)sig); }
int tracer_syscall(pid_t tid, int sig) { return (int)ptrace(PTRACE_SYSCALL, tid, 0, (long)sig); }

unsigned long tracer_eventmsg(pid_t tid)
{
    unsigned long msg = 0;
    ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
    return msg;
}

int mem_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
    if (len == 0) return 0;
    struct iovec l = { buf, len }, r = { (void *)addr, len };
    ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n == (ssize_t)len) return 0;
    if (n >= 0) errno = EFAULT;
    return -1;
}

int mem_write(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
    if (len == 0) return 0;
    struct iovec l = { (void *)buf, len }, r = { (void *)addr, len };
    ssize_t n = process_vm_writev(pid, &l, 1, &r, 1, 0);
    if (n == (ssize_t)len) return 0;
    if (n >= 0) errno = EFAULT;
    return -1;
}

ssize_t mem_read_str(pid_t pid, uint64_t addr, char *buf, size_t max)
{
    size_t got = 0;
    /* Read page-bounded chunks so a string near the end of a mapping works. */
    while (got + 1 < max) {
        uint64_t a = addr + got;
        size_t chunk = 4096 - (a & 4095);
        if (chunk > max - 1 - got) chunk = max - 1 - got;
        struct iovec l = { buf + got, chunk }, r = { (void *)a, chunk };
        ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n <= 0) { if (got == 0) { errno = EFAULT; return -1; } break; }
        void *nul = memchr(buf + got, 0, (size_t)n);
        if (nul) return (char *)nul - buf;
        got += (size_t)n;
    }
    buf[got] = 0;
    return (ssize_t)got;
}

/* ---- copies of tracee fds ---- */

/* Whether t's fd table is gone with its leader (it exited before the other
 * threads): then only a pidfd for t itself reaches the table. */
static bool leader_gone(const struct thread *t)
{
    const struct process *p = t->proc;
    return t != p->leader && (p->leader_zombie || p->leader->state == TS_DEAD);
}

int fd_copy(struct world *w, struct thread *t, int fd)
{
    (void)w;
    struct process *p = t->proc;
    if (fd < 0) {
        errno = EBADF;
        return -1;
    }
    if (leader_gone(t)) {
        int tfd = (int)syscall(SYS_pidfd_open, t->tid, PIDFD_THREAD);
        if (tfd < 0) return -1;
        int copy = (int)syscall(SYS_pidfd_getfd, tfd, fd, 0);
        int e = errno;
        close(tfd);
        errno = e;
        return copy;
    }
    /* pidfd_open and pidfd_getfd both give O_CLOEXEC fds. */
    if (p->pidfd < 0 && (p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0)) < 0) return -1;
    return (int)syscall(SYS_pidfd_getfd, p->pidfd, fd, 0);
}

/* ---- tracee code: read and written through ptrace, which may write
 * read-only private mappings (the kernel copies the page, as for a
 * debugger's breakpoint) ---- */

/* n bytes at addr into buf, or (write) from buf, a word at a time, each
 * partial word read first. */
static int code_words(pid_t tid, uint64_t addr, uint8_t *buf, size_t n, bool write)
{
    for (size_t done = 0; done < n;) {
        uint64_t word_at = (addr + done) & ~7ULL;
        errno = 0;
        long word = ptrace(PTRACE_PEEKDATA, tid, (void *)word_at, 0);
        if (word == -1 && errno) return -1;
        size_t skip = (size_t)(addr + done - word_at), take = 8 - skip < n - done ? 8 - skip : n - done;
        if (!write) {
            memcpy(buf + done, (uint8_t *)&word + skip, take);
        } else {
            memcpy((uint8_t *)&word + skip, buf + done, take);
            if (ptrace(PTRACE_POKEDATA, tid, (void *)word_at, (void *)word) != 0) return -1;
        }
        done += take;
    }
    return 0;
}

int code_peek(pid_t tid, uint64_t addr, uint8_t *out, size_t n)
{
    return code_words(tid, addr, out, n, false);
}

int code_poke(pid_t tid, uint64_t addr, const uint8_t *bytes, size_t n)
{
    return code_words(tid, addr, (uint8_t *)bytes, n, true);
}

int code_write(pid_t tid, uint64_t addr, const uint8_t *was, const uint8_t *bytes, size_t n)
{
    static int poke = -1;
    if (poke < 0) {
        const char *how = getenv("DSIM_CODE_WRITE");
        poke = how && !strcmp(how, "poke");
    }
    if (n == 0) return 0;
    if (!poke) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/mem", (int)tid);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        ssize_t done = fd < 0 ? -1 : pwrite(fd, bytes, n, (off_t)addr);
        if (fd >= 0) close(fd);
        if (done == (ssize_t)n) return 0;
        /* A short or failed write: the ptrace path writes it all again. */
    }
    /* The words that change, each run of them in one code_poke. */
    for (size_t i = 0; i < n;) {
        size_t end = i + 8 - ((addr + i) & 7);
        if (end > n) end = n;
        if (!memcmp(was + i, bytes + i, end - i)) { i = end; continue; }
        size_t run = end;
        while (run < n) {
            size_t next = run + 8 < n ? run + 8 : n;
            if (!memcmp(was + run, bytes + run, next - run)) break;
            run = next;
        }
        if (code_poke(tid, addr + i, bytes + i, run - i)) return -1;
        i = run;
    }
    return 0;
}
