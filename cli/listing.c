/* dsim syscalls: every x86-64 syscall and what dsim does with it, from the
 * dispatch table (syscalls/table.c); a syscall not there is a fence.
 * docs/syscalls.md holds this listing (t_syscall_table keeps it so). */
#include "cli/cli.h"
#include "syscalls/sys.h"
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NR 512      /* above the highest x86-64 syscall number */

struct listed {
    const char *name;
    const struct sys_entry *e;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct listed *)a)->name, ((const struct listed *)b)->name);
}

int cmd_syscalls(int argc, char **argv)
{
    if (argc > 1) return usage_error("syscalls takes no arguments, not %s", argv[1]);
    static struct listed rows[MAX_NR];
    static char *names[MAX_NR];
    size_t n = 0, count[SUP_CPUID_ONLY + 1] = { 0 };
    for (int nr = 0; nr < MAX_NR; nr++) {
        const struct sys_entry *e = (unsigned)nr < sys_table_len && sys_table[nr].name ? &sys_table[nr] : NULL;
        if (!e) {
            names[nr] = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
            if (!names[nr]) continue;
        }
        rows[n++] = (struct listed){ e ? e->name : names[nr], e };
    }
    qsort(rows, n, sizeof *rows, by_name);
    printf("%-24s %-10s %s\n", "SYSCALL", "SUPPORT", "NOTE");
    for (size_t i = 0; i < n; i++) {
        enum sys_support s = rows[i].e ? rows[i].e->support : SUP_FENCE;
        count[s]++;
        const char *note = rows[i].e ? rows[i].e->note : "";
        printf("%-24s %-*s%s%s\n", rows[i].name, *note ? 10 : 0, sys_support_name(s), *note ? " " : "", note);
    }
    printf("\n%zu syscalls:", n);
    for (int s = SUP_EMULATED; s <= SUP_CPUID_ONLY; s++) printf(" %zu %s,", count[s], sys_support_name((enum sys_support)s));
    printf(" %zu fences\n", count[SUP_FENCE]);
    for (int nr = 0; nr < MAX_NR; nr++) free(names[nr]);
    return 0;
}
