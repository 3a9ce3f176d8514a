/* System calls made by a stopped tracee at dsim's request: a warm start's
 * snapshot makes its templates and copies with them (snapshot.c), and the
 * copies' fds and threads (snapthreads.c). The tracee stands at the
 * seccomp stop of a call; each injected call runs from that call's
 * instruction, and back_home puts every register back. */
#ifndef DSIM_INJECT_H
#define DSIM_INJECT_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

/* A tracee at the seccomp stop of its call at the point: its registers
 * there, and whether it is still at that stop (else at the exit stop of
 * a call dsim made it make). */
struct tracee {
    pid_t pid;
    struct user_regs_struct home;
    bool at_seccomp;
};

/* Where an injected call's arguments go: below the red zone of the stack
 * at the point, put back after the call. */
#define SCRATCH_LEN 512
uint64_t scratch_addr(const struct tracee *t);

/* waitpid for pid (__WALL), past EINTR; its ptrace event, or -1 if none. */
pid_t wait_tracee(pid_t pid, int *status);
int event_of(int status);

/* The tracee makes call nr; its result (-errno on failure), or
 * -ENOTRECOVERABLE if it left the stops expected. A child it makes (clone)
 * is *child. It ends at the call's exit stop. */
long inject6(struct tracee *t, long nr, const uint64_t a[6], pid_t *child);
long inject4(struct tracee *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, pid_t *child);
long inject(struct tracee *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2, pid_t *child);
/* t calls nr with the path (written in its scratch, put back after). */
long inject_path(struct tracee *t, long nr, const char *path);
/* t calls nr(a0, a1, a2) with argument `at` (0-2) instead pointing to len
 * bytes of in, copied to its scratch (and read back into out, if given). */
long inject_buf(struct tracee *t, long nr, int at, const void *in, size_t len, void *out, uint64_t a0, uint64_t a1,
                uint64_t a2);

/* t calls clone3 with flags (CLONE_CHILD_CLEARTID at child_tid, if any)
 * and its child's pid (or tid) set_tid in t's pid namespace. The child,
 * traced here, waits at its first stop (a fork's scratch put back too).
 * Its host pid, or -errno. */
long inject_clone3(struct tracee *t, uint64_t flags, uint64_t child_tid, pid_t set_tid);

/* Back at the seccomp stop of its call at the point, every register as it
 * was there (the syscall instruction run again); 0 or -1. */
int back_home(struct tracee *t);
#endif
