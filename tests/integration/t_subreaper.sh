#!/bin/bash
# Two fidelity fixes of process bookkeeping.
# 1. PR_SET_CHILD_SUBREAPER: orphans go to the nearest subreaper ancestor,
#    which gets SIGCHLD and waits for them (a running grandchild, a line of
#    three generations, a zombie handed over dead); after the flag is
#    cleared an orphan goes to init. subreaper prints the same lines as
#    natively on every seed (it used to wait for ever and be reported as a
#    spin), and one seed gives one hash.
# 2. A deadlock report names what each thread is held in: a main thread
#    that exited before its other threads "has exited", not "blocked in
#    vfork"; a real vfork parent still is.
. "$(dirname "$0")/lib.sh"
dsim_timeout

P=$(build subreaper)
"$P" >"$TMP/native.out" || fail "subreaper failed natively"
[ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "native run did not end with ok"
grep -q '^adopted grandchild: status 5$' "$TMP/native.out" || fail "native: $(cat "$TMP/native.out")"
h=$(dsim_as_native --seeds "2 3 4 5 6" "$P") || exit 1
note "subreaper: seed 1 hash $h"

H=$(build held_threads)
EXEC_OPTS="--duration 5s" dsim_exec 1 "$H" leader >/dev/null; rc=$?
[ $rc != 0 ] || fail "leader: a deadlock passed"
grep -q 'deadlock: no thread can run' "$TMP/exec.err" || { cat "$TMP/exec.err" >&2; fail "leader: no deadlock report"; }
grep -q '^  machine main thread 2 has exited (its process lives on in its other threads)$' "$TMP/exec.err" ||
    { cat "$TMP/exec.err" >&2; fail "leader: the exited main thread is not reported as exited"; }
grep -q 'vfork' "$TMP/exec.err" && { cat "$TMP/exec.err" >&2; fail "leader: reported as vfork"; }
grep -q '^  machine main thread 3 blocked in read(' "$TMP/exec.err" || fail "leader: the blocked thread is missing"

EXEC_OPTS="--duration 5s" dsim_exec 1 "$H" vfork >/dev/null; rc=$?
[ $rc != 0 ] || fail "vfork: a deadlock passed"
grep -q '^  machine main thread 2 blocked in vfork (waiting for its child)$' "$TMP/exec.err" ||
    { cat "$TMP/exec.err" >&2; fail "vfork: the vfork parent is not reported"; }
note "deadlock reports name exited and vfork threads"
