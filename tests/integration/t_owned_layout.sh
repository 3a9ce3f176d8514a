#!/bin/bash
# Every machine has the owned layout: its pid namespace is owned by the
# machine's user namespace, where init (pid 1) and the command (pid 2) are
# root, while its mount, UTS, net and IPC namespaces are the host user
# namespace's. dsim makes the machine's /proc of that pid namespace one of
# two ways: fsconfig "pidns" (Linux 6.17), or, on older kernels, a helper
# forked into the pid namespace that mounts it and sets the next-pid cursor
# back, so that the command is still pid 2. DSIM_PROC_MOUNT forces either;
# both run here where the kernel has both. Either way the machine sees the
# same thing: its command is pid 2, its first child pid 3, the same mount
# table (but for the host's mount ids and device numbers), the same hash;
# no fd of dsim's (the machine's ns_last_pid, kept by dsim) reaches it.
# machine_reset_pid_cursor, which warm start will use, is tested through a
# test hook: DSIM_TEST_PID_CURSOR=N sets each machine's cursor to N before
# its command runs, so its first child is N+1, in each incarnation.
. "$(dirname "$0")/lib.sh"
dsim_timeout 120

ways="helper"
if "$DSIM" doctor | grep -q "^  proc of a given pid namespace *yes"; then
    ways="pidns helper"
    "$DSIM" doctor | grep -q "^machines' /proc here: pidns" || fail "doctor: auto does not pick pidns where it works"
else
    "$DSIM" doctor | grep -q "^machines' /proc here: helper" || fail "doctor: auto does not pick the helper"
    DSIM_PROC_MOUNT=pidns "$DSIM" exec -- /bin/true 2>"$TMP/forced.err" && fail "DSIM_PROC_MOUNT=pidns ran without kernel support"
    grep -q "DSIM_PROC_MOUNT=pidns, but this kernel" "$TMP/forced.err" || { cat "$TMP/forced.err" >&2; fail "no clear refusal of pidns"; }
    note "this kernel's proc takes no pid namespace: the helper only"
fi
DSIM_PROC_MOUNT=helper "$DSIM" doctor | grep -q "^machines' /proc here: helper" || fail "doctor ignores DSIM_PROC_MOUNT=helper"
DSIM_PROC_MOUNT=bogus "$DSIM" exec -- /bin/true 2>"$TMP/bogus.err" && fail "DSIM_PROC_MOUNT=bogus was accepted"
grep -q "DSIM_PROC_MOUNT=bogus: pidns or helper expected" "$TMP/bogus.err" || { cat "$TMP/bogus.err" >&2; fail "bogus: no clear message"; }

probe='echo "pid $$ ppid $PPID"; sleep 0 & echo "child $!"; wait
echo "fds $(ls /proc/self/fd | tr "\n" " ")"
echo "init fds $(ls /proc/1/fd | tr "\n" " ")"
grep -E "^(Uid|Gid|NSpid):" /proc/self/status; ls /proc | grep -c "^[0-9]"'
hashes=""
for way in $ways; do
    export DSIM_PROC_MOUNT=$way
    h=$(same_hash_twice 1 /bin/sh -c "$probe") || exit 1
    cp "$TMP/a.out" "$TMP/$way.out"
    grep -qx "pid 2 ppid 1" "$TMP/$way.out" || { cat "$TMP/$way.out" >&2; fail "$way: the command is not pid 2, child of 1"; }
    grep -qx "child 3" "$TMP/$way.out" || { cat "$TMP/$way.out" >&2; fail "$way: the command's first child is not pid 3"; }
    # ls's own fd 3 (its directory), nothing of dsim's.
    grep -qx "fds 0 1 2 3 " "$TMP/$way.out" || { cat "$TMP/$way.out" >&2; fail "$way: an fd of dsim's reached the machine"; }
    grep -qx "init fds " "$TMP/$way.out" || { cat "$TMP/$way.out" >&2; fail "$way: init holds an fd"; }
    hashes="$hashes $h"
    # The mount table without the host's mount ids and device numbers.
    dsim_exec 1 /bin/sh -c 'cat /proc/self/mountinfo' | awk '{ $1 = $2 = $3 = ""; print }' >"$TMP/$way.mountinfo"
    grep -q " /proc rw,nosuid,nodev,noexec,relatime - proc proc rw$" "$TMP/$way.mountinfo" ||
        { cat "$TMP/$way.mountinfo" >&2; fail "$way: /proc is not mounted as before"; }
    dsim_exec 1 /bin/sh -c 'cat /proc/self/mounts' >"$TMP/$way.mounts"
    grep -qx "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0" "$TMP/$way.mounts" ||
        fail "$way: /proc/self/mounts names /proc otherwise"

    # The cursor hook: N+1 for the first child, in every incarnation.
    write_conf "$TMP/cursor.conf" <<'EOF'
[simulation]
duration = 5s
[machine a]
command = sleep 0 & echo "pid $$ child $!"; sleep 1
[fault again]
kind = restart
at = 500ms
machine = a
duration = 100ms
EOF
    DSIM_TEST_PID_CURSOR=99 timeout -k 5 60 "$DSIM" replay "$TMP/cursor.conf" 1 --output "$TMP/cursor.$way" \
        >"$TMP/cursor.err" 2>&1 || { cat "$TMP/cursor.err" >&2; fail "$way: the cursor run failed"; }
    [ "$(grep -cx "pid 2 child 100" "$TMP/cursor.$way/seed-1/a.stdout")" = 2 ] ||
        { cat "$TMP/cursor.$way/seed-1/a.stdout" >&2; fail "$way: a cursor of 99 did not give pid 100 in both incarnations"; }
    timeout -k 5 60 "$DSIM" replay "$TMP/cursor.conf" 1 --output "$TMP/plain.$way" >"$TMP/cursor.err" 2>&1 ||
        { cat "$TMP/cursor.err" >&2; fail "$way: the plain run failed"; }
    [ "$(grep -cx "pid 2 child 3" "$TMP/plain.$way/seed-1/a.stdout")" = 2 ] ||
        { cat "$TMP/plain.$way/seed-1/a.stdout" >&2; fail "$way: a restarted machine's first child is not pid 3"; }
done
unset DSIM_PROC_MOUNT
if [ "$ways" = "pidns helper" ]; then
    set -- $hashes
    [ "$1" = "$2" ] || fail "the two ways give two hashes: $1 vs $2"
    diff "$TMP/pidns.out" "$TMP/helper.out" >&2 || fail "the two ways show the machine differently"
    diff "$TMP/pidns.mountinfo" "$TMP/helper.mountinfo" >&2 || fail "the two ways give two mount tables"
fi
note "owned layout ($ways): pid 2, first child 3, one mount table, one hash:$hashes; cursor hook gives 100"
