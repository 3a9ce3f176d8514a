#!/bin/bash
# SIOCOUTQ, SIOCOUTQNSD and SIOCINQ on simulated sockets answer as TCP's
# and UDP's (sock_outq: a socket made, listening (EINVAL), connected and
# idle, its peer, UDP (no SIOCOUTQNSD: ENOTTY)), as natively on seeds 1-3,
# one hash twice; SIOCOUTQNSD was a fence, and SIOCOUTQ the unix socket's
# kernel count. Between two machines 5 ms apart, right after a write of
# 100 bytes all 100 are unacknowledged (in the network) and none unsent,
# and none once they arrived; one hash twice. No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 120
prog=$(build sock_outq)
native_net_ok "$prog"
h=$(dsim_as_native --seeds "2 3" "$prog") || exit 1
write_conf "$TMP/q.conf" <<CONF
[network]
latency = 5ms
[machine p]
command = exec $prog peer 7700
[machine c]
command = exec $prog to p 7700
CONF
for run in 1 2; do
    "$DSIM" run "$TMP/q.conf" --seeds 1 --output "$TMP/o$run" --results "$TMP/r$run.jsonl" >"$TMP/run.out" 2>&1 ||
        { cat "$TMP/run.out"; fail "the two machines' run failed"; }
done
grep -qx "right after writing 100 bytes: SIOCOUTQ 0 100, SIOCOUTQNSD 0 0, SIOCINQ 0 0" "$TMP/o1/seed-1/c.stdout" &&
    grep -qx "after the peer read them: SIOCOUTQ 0 0, SIOCOUTQNSD 0 0, SIOCINQ 0 0" "$TMP/o1/seed-1/c.stdout" ||
    fail "c's queues: $(cat "$TMP/o1/seed-1/c.stdout")"
grep -qx "peer read 100" "$TMP/o1/seed-1/p.stdout" || fail "p: $(cat "$TMP/o1/seed-1/p.stdout")"
a=$(grep -o '"hash": *"[0-9a-f]*"' "$TMP/r1.jsonl") b=$(grep -o '"hash": *"[0-9a-f]*"' "$TMP/r2.jsonl")
[ -n "$a" ] && [ "$a" = "$b" ] || fail "two runs of seed 1: $a and $b"
note "as natively, hash $h; 100 bytes unacknowledged in the network"
