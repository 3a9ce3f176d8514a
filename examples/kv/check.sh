#!/bin/sh
# check.sh KV.STDOUT: did the store keep every write it acknowledged? (the
# [check] of examples/kv). The store's output runs across its incarnations:
# "recovered N keys" at each start, "ack keyK" after each write. A start that
# recovered fewer keys than were acknowledged before it lost acknowledged
# writes: print which, exit 1.
awk '
/^ack key/ { acked = substr($2, 4) + 0 }
/^recovered / {
    starts++
    if ($2 < acked) {
        printf "LOST: key%d..key%d were acknowledged, but restart %d recovered only %d keys\n",
            $2 + 1, acked, starts - 1, $2
        bad = 1
    }
    acked = $2
}
END {
    if (!starts) { print "the store never started"; exit 1 }
    if (!bad) printf "ok: %d starts, no acknowledged write lost\n", starts
    exit bad
}' "$1"
