#!/bin/bash
# SO_RCVTIMEO and SO_SNDTIMEO (sock_timeout): a read, recv or accept with
# nothing to take fails with EAGAIN once the receive timeout has passed on
# virtual time, and blocking writes into a full socket return the part they
# moved, then EAGAIN, after the send timeout; on a unix socketpair and on
# simulated TCP. Under `dsim exec` the program prints what it prints
# natively on seeds 1-3, and seed 1 gives one trace hash twice.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
prog=$(build sock_timeout)
native_net "$prog" selftest >"$TMP/native.out" 2>"$TMP/native.err" ||
    { cat "$TMP/native.out" "$TMP/native.err" >&2; fail "sock_timeout failed natively"; }
[ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "native run did not end with ok"
for seed in 1 2 3; do
    dsim_exec $seed "$prog" selftest >"$TMP/s.out"; rc=$?
    [ "$rc" = 0 ] || { cat "$TMP/s.out" "$TMP/exec.err" >&2; fail "seed $seed: exit $rc"; }
    diff "$TMP/native.out" "$TMP/s.out" >&2 || fail "seed $seed: output differs from native"
done
h=$(same_hash_twice 1 "$prog" selftest) || exit 1
note "socket timeouts as natively on seeds 1-3; seed 1 hash $h twice"
