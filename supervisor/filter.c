#include "supervisor/filter.h"
#include "syscalls/sys.h"
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Every syscall stops at seccomp (SCMP_ACT_TRACE) but the table's
 * UNTRAPPED rows, its EXEC_ONLY rows unless their prot argument (the
 * third for mmap, mprotect and pkey_mprotect) asks for PROT_EXEC: then the
 * code is rewritten (world/rewrite.h), and its CPUID_ONLY row (arch_prctl)
 * unless its option, an int, is ARCH_GET_CPUID or ARCH_SET_CPUID (0x1011,
 * 0x1012). One list: syscalls/table.c. */
#define EXEC_ONLY_PROT_ARG 2
#define ARCH_CPUID_FIRST 0x1011
#define ARCH_CPUID_LAST 0x1012

int filter_build(struct filter_prog *out)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRACE(0));
    if (!ctx) return -1;
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    for (unsigned nr = 0; rc == 0 && nr < sys_table_len; nr++) {
        enum sys_support sup = sys_table[nr].name ? sys_table[nr].support : SUP_FENCE;
        struct scmp_arg_cmp no_exec = SCMP_CMP(EXEC_ONLY_PROT_ARG, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0);
        if (sup == SUP_UNTRAPPED) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, (int)nr, 0);
        else if (sup == SUP_EXEC_ONLY) rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, (int)nr, 1, &no_exec);
        else if (sup == SUP_CPUID_ONLY) {
            rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, (int)nr, 1, SCMP_A0_32(SCMP_CMP_LT, ARCH_CPUID_FIRST));
            if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, (int)nr, 1, SCMP_A0_32(SCMP_CMP_GT, ARCH_CPUID_LAST));
        }
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
