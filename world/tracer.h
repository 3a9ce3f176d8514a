/* ptrace and tracee-memory plumbing. */
#ifndef DSIM_TRACER_H
#define DSIM_TRACER_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#define TRACE_OPTIONS (PTRACE_O_TRACESECCOMP | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
                       PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL | \
                       PTRACE_O_TRACESYSGOOD)

int tracer_getregs(pid_t tid, struct user_regs_struct *r);
int tracer_setregs(pid_t tid, const struct user_regs_struct *r);
int tracer_cont(pid_t tid, int sig);
int tracer_syscall(pid_t tid, int sig);
unsigned long tracer_eventmsg(pid_t tid);

/* Whole-or-nothing copies; return 0 or -1 (errno set, EFAULT for bad addresses). */
int mem_read(pid_t pid, uint64_t addr, void *buf, size_t len);
int mem_write(pid_t pid, uint64_t addr, const void *buf, size_t len);
/* Tracee code, read and written a word at a time through ptrace, which
 * may write read-only private mappings (the kernel copies the page, as for
 * a debugger's breakpoint). 0 or -1. */
int code_peek(pid_t tid, uint64_t addr, uint8_t *out, size_t n);
int code_poke(pid_t tid, uint64_t addr, const uint8_t *bytes, size_t n);
/* Tracee code that was n bytes `was` at addr becomes `bytes`: one write to
 * /proc/TID/mem (which may also write read-only private mappings: the
 * kernel forces a tracer's write), or if that fails (or with
 * DSIM_CODE_WRITE=poke in the environment) code_poke of the words that
 * change. 0 or -1. */
int code_write(pid_t tid, uint64_t addr, const uint8_t *was, const uint8_t *bytes, size_t n);
/* Reads a NUL-terminated string of at most max-1 bytes; returns its length or -1. */
ssize_t mem_read_str(pid_t pid, uint64_t addr, char *buf, size_t max);

/* A supervisor copy of the tracee thread t's fd (pidfd_getfd: the same open
 * file description), or -1 with errno. */
struct world;
struct thread;
int fd_copy(struct world *w, struct thread *t, int fd);
#endif
