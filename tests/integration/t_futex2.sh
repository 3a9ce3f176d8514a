#!/bin/bash
# Linux 6.7's futex_wait, futex_wake and futex_requeue (were fences): a
# waiter woken, two waiters requeued and woken, timeouts on either clock,
# and the errors in Linux's order. dsim answers them on every host, so its
# output is compared with futex2.expected (a 6.18 kernel's) and, where the
# host's kernel has the calls, with a native run; one seed, one hash.
. "$(dirname "$0")/lib.sh"
prog=$(build futex2)
expected="$PROGS/futex2.expected"
timeout 30 "$prog" >"$TMP/native.out" || { cat "$TMP/native.out"; fail "futex2 failed natively"; }
if [ "$(cat "$TMP/native.out")" != "no futex2" ]; then
    diff "$expected" "$TMP/native.out" >&2 || fail "this kernel answers otherwise than futex2.expected"
fi
for seed in 1 2; do
    dsim_exec $seed "$prog" >"$TMP/dsim.out" || { cat "$TMP/exec.err" "$TMP/dsim.out"; fail "seed $seed failed under dsim"; }
    diff "$expected" "$TMP/dsim.out" >&2 || fail "seed $seed: futex2 under dsim differs from Linux"
done
h=$(same_hash_twice 1 "$prog") || exit 1
note "futex2 as on Linux 6.18 (native here: $(head -c 20 "$TMP/native.out" | head -n 1)); hash $h twice"
