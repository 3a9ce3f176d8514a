#!/bin/bash
# One list of what dsim does with each syscall: `dsim syscalls` prints the
# dispatch table (emulated, passed, refused, untrapped, exec-only, fence)
# and docs/syscalls.md holds exactly that listing. The seccomp filter takes
# its untrapped rows from the same table: an untrapped call never shows in
# a trace, an exec-only one only with PROT_EXEC, every other one does.
. "$(dirname "$0")/lib.sh"
"$DSIM" syscalls >"$TMP/list" || fail "dsim syscalls failed"
sed -n '/^```$/,/^```$/p' "$SRCDIR/docs/syscalls.md" | sed '1d;$d' >"$TMP/doc"
diff "$TMP/doc" "$TMP/list" >&2 || fail "docs/syscalls.md differs from dsim syscalls: regenerate it"
for want in "getppid passed" "futex emulated" "rseq refused" "rt_sigprocmask untrapped" "mmap exec-only" \
            "unshare fence" "mount fence" "ptrace fence"; do
    set -- $want
    grep -Eq "^$1 +$2( |\$)" "$TMP/list" || fail "$1 is not listed as $2"
done
"$DSIM" syscalls extra >/dev/null 2>&1; [ $? = 2 ] || fail "an extra argument is not a usage error"
# The filter follows the table: sigprocmask and munmap never stop, a plain
# mmap does not, getppid does.
"$DSIM" exec --trace "$TMP/t" -- /bin/sh -c 'cat /proc/self/status >/dev/null' >/dev/null 2>&1 || fail "exec failed"
"$DSIM" trace "$TMP/t" >"$TMP/t.txt"
! grep -Eq " (rt_sigprocmask|munmap|brk)\(" "$TMP/t.txt" || fail "an untrapped syscall stopped"
grep -Eq " (openat|read|getppid|wait4)\(" "$TMP/t.txt" || fail "no trapped syscall in the trace"
! grep -Eq " mmap\([^)]*, 0x[13], " "$TMP/t.txt" || fail "an mmap without PROT_EXEC stopped"
note "$(tail -n 1 "$TMP/list")"
