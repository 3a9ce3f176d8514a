#!/bin/bash
# sendmmsg and recvmmsg on simulated UDP (udp_mmsg): several datagrams in
# one call each way, sources, MSG_TRUNC, MSG_DONTWAIT, MSG_WAITFORONE and a
# blocking recvmmsg that waits for all it asked for. The selftest prints
# under `dsim exec` what it prints natively, on seeds 1-3, and seed 1 gives
# one hash twice.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
prog=$(build udp_mmsg)
native_net "$prog" selftest >"$TMP/native.out" 2>"$TMP/native.err" ||
    { cat "$TMP/native.out" "$TMP/native.err" >&2; fail "udp_mmsg failed natively"; }
[ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "native run did not end with ok"
for seed in 1 2 3; do
    dsim_exec $seed "$prog" selftest >"$TMP/s.out"; rc=$?
    [ "$rc" = 0 ] || { cat "$TMP/s.out" "$TMP/exec.err" >&2; fail "seed $seed: exit $rc"; }
    diff "$TMP/native.out" "$TMP/s.out" >&2 || fail "seed $seed: output differs from native"
done
h=$(same_hash_twice 1 "$prog" selftest) || exit 1
note "sendmmsg/recvmmsg as natively on seeds 1-3; seed 1 hash $h twice"
