#!/bin/bash
# exec_chain.c under dsim: a process execve()s itself three times (once from
# a second thread); its pid stays the same (and is 2, the machine's first
# process), plain fds survive exec and O_CLOEXEC ones do not.
. "$(dirname "$0")/lib.sh"

dsim_timeout

prog=$(build exec_chain)

"$prog" >"$TMP/native.out" || { cat "$TMP/native.out" >&2; fail "exec_chain failed natively"; }
grep -v '^pid ' "$TMP/native.out" >"$TMP/native.nopid"
printf 'stage 0\nstage 1\nstage 2\nstage 3\ndone 3\nsame pid\n' | cmp -s - "$TMP/native.nopid" ||
    fail "unexpected native output: $(cat "$TMP/native.out")"

h=$(same_hash_twice 1 "$prog") || exit 1
note "seed 1 hash $h"
grep -v '^pid ' "$TMP/a.out" >"$TMP/dsim.nopid"
diff "$TMP/native.nopid" "$TMP/dsim.nopid" >&2 || fail "output differs from native (pid lines aside)"
grep -qx 'pid 2' "$TMP/a.out" || fail "under dsim the pid after three execs is not 2: $(grep '^pid ' "$TMP/a.out")"

dsim_exec 2 "$prog" >"$TMP/s2.out"; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/s2.out" "$TMP/exec.err" >&2; fail "seed 2: exit $rc"; }
cmp -s "$TMP/a.out" "$TMP/s2.out" || fail "seed 2: output differs from seed 1"
note "ok"
