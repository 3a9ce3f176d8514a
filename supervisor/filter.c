#include "supervisor/filter.h"
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Thread-local, deterministic given no ASLR, and hot: never trapped. */
static const char *const allowed[] = {
    "munmap", "brk", "madvise", "mremap", "msync", "mincore",
    "mlock", "munlock", "mlock2", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
    "arch_prctl", "set_robust_list", "get_robust_list",
};

/* Likewise, unless they make memory executable: then the code is
 * rewritten (supervisor/rewrite.h). The argument holding prot. */
static const struct { const char *name; unsigned prot_arg; } allowed_unless_exec[] = {
    { "mmap", 2 }, { "mprotect", 2 }, { "pkey_mprotect", 2 },
};

int filter_build(struct filter_prog *out)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRACE(0));
    if (!ctx) return -1;
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    for (size_t i = 0; rc == 0 && i < sizeof allowed / sizeof *allowed; i++) {
        int nr = seccomp_syscall_resolve_name(allowed[i]);
        if (nr == __NR_SCMP_ERROR) { rc = -1; break; }
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
    }
    for (size_t i = 0; rc == 0 && i < sizeof allowed_unless_exec / sizeof *allowed_unless_exec; i++) {
        int nr = seccomp_syscall_resolve_name(allowed_unless_exec[i].name);
        if (nr == __NR_SCMP_ERROR) { rc = -1; break; }
        struct scmp_arg_cmp no_exec = SCMP_CMP(allowed_unless_exec[i].prot_arg, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0);
        rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, 1, &no_exec);
    }
    int fd = rc == 0 ? memfd_create("dsim-bpf", MFD_CLOEXEC) : -1;
    if (fd >= 0) rc = seccomp_export_bpf(ctx, fd);
    seccomp_release(ctx);
    if (fd < 0 || rc != 0) { if (fd >= 0) close(fd); return -1; }
    off_t size = lseek(fd, 0, SEEK_END);
    out->insns = malloc((size_t)size);
    out->len = (size_t)size / sizeof(struct sock_filter);
    ssize_t n = out->insns ? pread(fd, out->insns, (size_t)size, 0) : -1;
    close(fd);
    return n == size ? 0 : -1;
}
