#!/bin/bash
# Simulated UDP.
#  1. udp_counts selftest (1000 datagrams on 127.0.0.1 by sendto, send and
#     sendmsg, recvfrom and recvmsg; ECONNREFUSED from a closed port) prints
#     under `dsim exec` what it prints natively, with one hash twice.
#  2. Two machines on the default network (no faults): every datagram
#     arrives once and in order (`recv ... exact`), and both print what the
#     same roles print natively, up to the machines' addresses.
#  3. The same pair with loss 10%, duplicate 5%, reorder 5%: on seeds 1-5
#     the receiver sees datagrams missing, duplicated and out of order, its
#     counts add up, the sender hears the same counts, and the counts differ
#     from seed to seed; replaying a seed twice gives the sweep's hash and
#     the same counts.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
U=$(build udp_counts)
N=300

# --- 1. selftest --------------------------------------------------------------
native_net_out "$U" selftest
h1=$(dsim_as_native --seeds 2 "$U" selftest) || exit 1
note "selftest as natively; seed 1 hash $h1 twice"

# --- 2. two machines, no faults -----------------------------------------------
mkdir -p "$TMP/native2"
native_net sh -c '
    cd "$1" || exit 1
    "$2" recv 0.0.0.0 7400 $3 exact >rcv.stdout & r=$!
    "$2" send 127.0.0.1 7400 $3 >snd.stdout & s=$!
    wait $r && wait $s
' sh "$TMP/native2" "$U" $N || { cat "$TMP"/native2/*.stdout >&2; fail "recv/send failed natively"; }
mkdir -p "$TMP/clean"
write_conf "$TMP/clean/udp.conf" <<EOF
[machine rcv]
command = exec $U recv 0.0.0.0 7400 $N exact
[machine snd]
command = exec $U send rcv 7400 $N
EOF
"$DSIM" run "$TMP/clean/udp.conf" --seeds 1-3 --output "$TMP/clean.out" >"$TMP/run.out" 2>&1 ||
    { cat "$TMP/run.out" >&2; fail "faultless network: a seed failed (a datagram lost, duplicated or reordered?)"; }
for s in 1 2 3; do
    for m in rcv snd; do
        diff "$TMP/native2/$m.stdout" <(sed 's/\<10\.0\.0\.[12]\>/127.0.0.1/g' "$TMP/clean.out/seed-$s/$m.stdout") >&2 ||
            fail "faultless network: seed $s: $m differs from native"
    done
    grep -q "^recv: end marker received; datagrams from 10.0.0.2, all from one address and port$" \
        "$TMP/clean.out/seed-$s/rcv.stdout" || fail "seed $s: the receiver did not see the sender's address"
done
grep -qx "recv: $N distinct of $N, 0 duplicates, 0 out of order, 0 missing, 0 corrupt" "$TMP/clean.out/seed-1/rcv.stdout" ||
    fail "faultless network: $(cat "$TMP/clean.out/seed-1/rcv.stdout")"

# --- 3. loss, duplication, reordering ------------------------------------------
mkdir -p "$TMP/lossy"
write_conf "$TMP/lossy/udp.conf" <<EOF
[simulation]
duration = 60s
[network]
latency = 1ms..20ms
loss = 10%
duplicate = 5%
reorder = 5%
[machine rcv]
command = exec $U recv 0.0.0.0 7400 $N
[machine snd]
command = exec $U send rcv 7400 $N
EOF
"$DSIM" run "$TMP/lossy/udp.conf" --seeds 1-5 --output "$TMP/lossy.out" --results "$TMP/lossy.jsonl" >"$TMP/run.out" 2>&1 ||
    { cat "$TMP/run.out" >&2; fail "lossy network: a seed failed"; }
# counts FILE: the receiver's counts line.
counts() { grep '^recv: [0-9]* distinct of ' "$1"; }
for s in 1 2 3 4 5; do
    c=$(counts "$TMP/lossy.out/seed-$s/rcv.stdout") || fail "seed $s: no counts: $(cat "$TMP/lossy.out/seed-$s/rcv.stdout")"
    echo "$c" >>"$TMP/all.counts"
    read -r d dup ooo miss corrupt <<<"$(sed -E 's/^recv: ([0-9]+) distinct of [0-9]+, ([0-9]+) duplicates, ([0-9]+) out of order, ([0-9]+) missing, ([0-9]+) corrupt$/\1 \2 \3 \4 \5/' <<<"$c")"
    [ -n "$corrupt" ] || fail "seed $s: cannot read the counts: $c"
    [ $((d + miss)) = $N ] || fail "seed $s: distinct + missing != $N: $c"
    [ "$miss" -gt 0 ] && [ "$dup" -gt 0 ] && [ "$ooo" -gt 0 ] && [ "$corrupt" = 0 ] ||
        fail "seed $s: 10% loss, 5% duplicates and reordering, yet: $c"
    grep -qx "send: the receiver reports $d distinct, $dup duplicates, $ooo out of order" "$TMP/lossy.out/seed-$s/snd.stdout" ||
        fail "seed $s: the sender heard other counts than $c: $(cat "$TMP/lossy.out/seed-$s/snd.stdout")"
done
nc=$(sort -u "$TMP/all.counts" | wc -l)
[ "$nc" -ge 2 ] || fail "seeds 1-5 all gave the same counts: the network's draws ignore the seed: $(head -n 1 "$TMP/all.counts")"

# Seed 4 replayed twice: the sweep's hash and counts.
h4=$(sed -n 's/.*"seed":4,.*"hash":"\([0-9a-f]*\)".*/\1/p' "$TMP/lossy.jsonl")
[ -n "$h4" ] || fail "no hash for seed 4 in the results"
c4=$(counts "$TMP/lossy.out/seed-4/rcv.stdout")
for i in 1 2; do
    "$DSIM" replay "$TMP/lossy/udp.conf" 4 --output "$TMP/rep$i" >"$TMP/rep$i.out" 2>&1 ||
        { cat "$TMP/rep$i.out" >&2; fail "replay $i of seed 4 failed"; }
    h=$(sed -n 's/^trace hash //p' "$TMP/rep$i.out")
    [ "$h" = "$h4" ] || fail "replay $i of seed 4: hash $h, the sweep had $h4"
    [ "$(counts "$TMP/rep$i/seed-4/rcv.stdout")" = "$c4" ] ||
        fail "replay $i of seed 4: $(counts "$TMP/rep$i/seed-4/rcv.stdout"), the sweep had $c4"
done
note "lossy network: $nc distinct counts over seeds 1-5; seed 4 ($c4) replays to $h4 twice"
