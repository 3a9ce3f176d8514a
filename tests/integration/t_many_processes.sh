#!/bin/bash
# A shell loop that starts 1500 short pipelines (echo | cat, each cat
# reading a pipe the supervisor waits on) runs to the end under dsim, with
# the same trace hash twice: dead threads and reaped processes leave the
# arrays every step walks (which must not change the schedule), and each
# process's pidfd is closed when it exits rather than when the run ends.
. "$(dirname "$0")/lib.sh"
script='i=0; while [ $i -lt 1500 ]; do echo $i | /bin/cat >/dev/null || exit 1; i=$((i+1)); done; echo done $i'
dsim_exec 1 /bin/sh -c "$script" >"$TMP/out" || { tail -n 5 "$TMP/exec.err"; fail "the loop did not run to the end"; }
[ "$(cat "$TMP/out")" = "done 1500" ] || fail "output: $(head -c 200 "$TMP/out")"
h=$(same_hash_twice 1 /bin/sh -c "$script") || exit 1
note "1500 pipelines; hash $h twice"
