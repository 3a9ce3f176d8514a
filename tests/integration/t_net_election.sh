#!/bin/bash
# A scheduled partition: five machines run a Raft-style UDP leader election
# (udp_election.py, CPython) for 14 s; from 2 s to 8 s n1 n2 are cut off
# from n3 n4 n5. On seeds 1-3 every node ends agreeing with a majority on
# one leader ("ok"), in a term past the first (the partition forced at least
# one new election). The trace of a seed shows the cut: datagrams between
# the sides, and only those, are "dropped: partition", only between 2 s and
# 8 s, and datagrams cross between the sides before and after. Replaying the
# seed twice gives the sweep's hash.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60

# The conf's directory holds only what the machines need and does not
# change during the test (Python lists its script's directory: its contents
# are part of what a seed sees).
D=$TMP/el
mkdir -p "$D"
cp "$PROGS/udp_election.py" "$PROGS/netcheck.py" "$D/"
PEERS=n1,n2,n3,n4,n5
{
    printf '[simulation]\nduration = 30s\n'
    printf '[network]\nlatency = 1ms..10ms\n'
    printf '[partition]\nat = 2s\nduration = 6s\nsides = n1 n2 | n3 n4 n5\n'
    for i in 1 2 3 4 5; do
        printf '[machine n%s]\ncommand = exec python3 udp_election.py n%s %s 7700 --duration 14\n' $i $i $PEERS
    done
} >"$D/el.conf"

"$DSIM" run "$D/el.conf" --seeds 1-3 -j 2 --output "$TMP/out" --results "$TMP/r.jsonl" >"$TMP/run.out" 2>&1 ||
    { cat "$TMP/run.out" >&2; tail -n +1 "$TMP"/out/seed-*/n*.std* >&2; fail "a seed failed"; }
for s in 1 2 3; do
    leaders=""
    for i in 1 2 3 4 5; do
        f=$TMP/out/seed-$s/n$i.stdout
        [ "$(tail -n 1 "$f")" = ok ] || fail "seed $s: n$i: $(cat "$f")"
        line=$(grep "^node n$i: leader " "$f") || fail "seed $s: n$i printed no final belief"
        term=$(sed -n 's/.* term \([0-9]*\),.*/\1/p' <<<"$line")
        [ "${term:-0}" -ge 2 ] || fail "seed $s: n$i ended in term ${term:-?}: the partition forced no new election: $line"
        leaders="$leaders$(sed -n 's/^node [^ ]*: leader \([^ ]*\) term \([0-9]*\),.*/\1 \2/p' <<<"$line")"$'\n'
    done
    note "seed $s: $(sort -u <<<"$leaders" | grep -v '^$' | tr '\n' ';')"
done

# The partition in the trace of seed 2.
"$DSIM" replay "$D/el.conf" 2 --trace "$TMP/t2.gz" >"$TMP/rep1.out" 2>&1 || { cat "$TMP/rep1.out" >&2; fail "replay of seed 2 failed"; }
"$DSIM" trace "$TMP/t2.gz" >"$TMP/t2.txt" || fail "dsim trace failed"
# UDP lines: TIME MACHINE THREAD net udp SRC SRCADDR > DST DSTADDR [dropped: WHY] LEN
awk '$4 == "net" && $5 == "udp"' "$TMP/t2.txt" >"$TMP/udp.txt"
ndrop=$(grep -c "dropped: partition" "$TMP/udp.txt")
[ "$ndrop" -gt 0 ] || fail "no datagram was dropped by the partition"
awk 'function side(n) { return (n == "n1" || n == "n2") ? "a" : "b" }
     { split($1, t, "."); ns = t[1] * 1e9 + t[2]; cross = side($6) != side($9) }
     /dropped: partition/ {
         if (!cross) { print "dropped within a side: " $0; bad = 1 }
         if (ns < 2e9 || ns >= 8e9) { print "dropped outside 2s..8s: " $0; bad = 1 }
         next }
     /dropped/ { print "dropped for another reason: " $0; bad = 1; next }
     cross && ns >= 2e9 + 2e7 && ns < 8e9 { print "crossed during the partition: " $0; bad = 1 }
     cross && ns < 2e9 { before++ }
     cross && ns >= 8e9 { after++ }
     END { if (!before) { print "nothing crossed before 2s"; bad = 1 }
           if (!after) { print "nothing crossed after 8s"; bad = 1 }
           exit bad }' "$TMP/udp.txt" >&2 || fail "the trace does not show the partition as configured"

# The seed replays to the sweep's hash, twice (the traced replay above, and
# one without a trace).
h2=$(sed -n 's/.*"seed":2,.*"hash":"\([0-9a-f]*\)".*/\1/p' "$TMP/r.jsonl")
[ -n "$h2" ] || fail "no hash for seed 2 in the results"
"$DSIM" replay "$D/el.conf" 2 >"$TMP/rep2.out" 2>&1 || { cat "$TMP/rep2.out" >&2; fail "second replay of seed 2 failed"; }
for i in 1 2; do
    h=$(sed -n 's/^trace hash //p' "$TMP/rep$i.out")
    [ "$h" = "$h2" ] || fail "replay $i of seed 2: hash $h, the sweep had $h2"
done
note "$ndrop datagrams dropped by the partition; seed 2 replays to $h2 twice"
