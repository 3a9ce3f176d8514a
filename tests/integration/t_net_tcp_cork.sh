#!/bin/bash
# MSG_MORE and TCP_CORK hold a TCP sender's bytes as Linux does (tcp_cork):
# until a send without MSG_MORE, TCP_CORK cleared, TCP_NODELAY set, the
# writer's shutdown, or the 200 ms ceiling; full segments go at once, and
# after them the rest of a MSG_MORE send; sendfile pushes. Native = dsim on
# two seeds; one seed, one hash. No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
prog=$(build tcp_cork)
native_net "$prog" >"$TMP/native.out" 2>"$TMP/native.err" || { cat "$TMP/native.out" "$TMP/native.err" >&2; fail "tcp_cork failed natively"; }
grep -q "held" "$TMP/native.out" || fail "nothing was held natively: the program tests nothing"
for seed in 1 2; do
    dsim_exec $seed "$prog" >"$TMP/dsim.out" || { cat "$TMP/exec.err" "$TMP/dsim.out" >&2; fail "seed $seed failed"; }
    diff "$TMP/native.out" "$TMP/dsim.out" >&2 || fail "seed $seed: tcp_cork under dsim differs from native"
done
h=$(same_hash_twice 1 "$prog") || exit 1
note "as natively; hash $h twice"
