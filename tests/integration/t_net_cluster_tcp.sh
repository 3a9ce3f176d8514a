#!/bin/bash
# TCP between machines of a cluster, over a network with 1..20 ms latency:
# an epoll echo server (srv) with three non-blocking clients that reach it by
# its machine name, and a blocking server (bsrv, at an address given with
# `address =`) with two blocking clients. On seeds 1-5 every machine prints
# what the same role prints natively on 127.0.0.1, once each machine's
# address is put back to 127.0.0.1; the addresses themselves are the
# machines' (a client connects to its server's address from its own, and the
# server sees each client's address). The seeds give different trace
# hashes; `dsim replay CONF 3` twice gives seed 3's hash and output.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
E=$(build tcp_epoll_echo)
B=$(build tcp_blocking)
K=50

# Natively: the same roles, on 127.0.0.1, in one fresh namespace.
mkdir -p "$TMP/native"
native_net sh -c '
    cd "$1" || exit 1; E=$2 B=$3 K=$4
    "$E" server 0.0.0.0 7200 3 >srv.stdout & p1=$!
    "$B" server 0.0.0.0 7100 2 >bsrv.stdout & p2=$!
    "$E" client 127.0.0.1 7200 1 $K >c1.stdout & p3=$!
    "$E" client 127.0.0.1 7200 2 $K >c2.stdout & p4=$!
    "$E" client 127.0.0.1 7200 3 $K >c3.stdout & p5=$!
    "$B" client 127.0.0.1 7100 1 >b1.stdout & p6=$!
    "$B" client 127.0.0.1 7100 2 >b2.stdout & p7=$!
    r=0; for p in $p1 $p2 $p3 $p4 $p5 $p6 $p7; do wait $p || r=1; done; exit $r
' sh "$TMP/native" "$E" "$B" $K || { tail -n +1 "$TMP"/native/*.stdout >&2; fail "the roles failed natively"; }
MACHINES="srv c1 c2 c3 bsrv b1 b2"
for m in $MACHINES; do
    [ "$(tail -n 1 "$TMP/native/$m.stdout")" = ok ] || fail "native $m did not end with ok"
done
grep -q "127.0.0.1" "$TMP/native/b1.stdout" || fail "native b1 prints no address: the comparison would be blind"

mkdir -p "$TMP/cl"
write_conf "$TMP/cl/tcp.conf" <<EOF
[simulation]
duration = 60s
[network]
latency = 1ms..20ms
[machine srv]
command = exec $E server 0.0.0.0 7200 3
[machine c1]
command = exec $E client srv 7200 1 $K
[machine c2]
command = exec $E client srv 7200 2 $K
[machine c3]
command = exec $E client srv 7200 3 $K
[machine bsrv]
address = 10.0.2.1
command = exec $B server 0.0.0.0 7100 2
[machine b1]
address = 10.0.2.11
command = exec $B client bsrv 7100 1
[machine b2]
address = 10.0.2.12
command = exec $B client bsrv 7100 2
EOF
# The machines' addresses: srv..c3 get 10.0.0.1-4 in declaration order.
unaddr() { sed -E 's/\<10\.0\.(0\.[1-4]|2\.1|2\.11|2\.12)\>/127.0.0.1/g' "$1"; }

"$DSIM" run "$TMP/cl/tcp.conf" --seeds 1-5 --output "$TMP/out" --results "$TMP/r.jsonl" >"$TMP/run.out" 2>&1 ||
    { cat "$TMP/run.out" >&2; fail "dsim run --seeds 1-5 failed"; }
for s in 1 2 3 4 5; do
    for m in $MACHINES; do
        f=$TMP/out/seed-$s/$m.stdout
        [ -f "$f" ] || fail "seed $s: no output of $m"
        diff "$TMP/native/$m.stdout" <(unaddr "$f") >&2 || fail "seed $s: $m's output differs from native"
    done
    # The addresses are the machines', not loopback's.
    for i in 1 2; do
        grep -qx "client $i: connected to 10.0.2.1 port 7100 from 10.0.2.1$i (AF_INET)" "$TMP/out/seed-$s/b$i.stdout" ||
            fail "seed $s: b$i: $(head -n 1 "$TMP/out/seed-$s/b$i.stdout")"
        grep -q "^server: 'hello from client $i' (.*) from 10.0.2.1$i to 10.0.2.1 port 7100: " "$TMP/out/seed-$s/bsrv.stdout" ||
            fail "seed $s: bsrv did not see client $i at 10.0.2.1$i: $(cat "$TMP/out/seed-$s/bsrv.stdout")"
    done
done
nh=$(sed -n 's/.*"hash":"\([0-9a-f]*\)".*/\1/p' "$TMP/r.jsonl" | sort -u | wc -l)
[ "$nh" = 5 ] || fail "seeds 1-5 gave $nh distinct trace hashes, expected 5"

# Replaying seed 3 twice: the sweep's hash and output, both times.
h3=$(sed -n 's/.*"seed":3,.*"hash":"\([0-9a-f]*\)".*/\1/p' "$TMP/r.jsonl")
[ -n "$h3" ] || fail "no hash for seed 3 in the results: $(cat "$TMP/r.jsonl")"
for i in 1 2; do
    "$DSIM" replay "$TMP/cl/tcp.conf" 3 --output "$TMP/rep$i" >"$TMP/rep$i.out" 2>&1 ||
        { cat "$TMP/rep$i.out" >&2; fail "replay $i of seed 3 failed"; }
    h=$(sed -n 's/^trace hash //p' "$TMP/rep$i.out")
    [ "$h" = "$h3" ] || fail "replay $i of seed 3: hash $h, the sweep had $h3"
    diff -r "$TMP/out/seed-3" "$TMP/rep$i/seed-3" >&2 || fail "replay $i of seed 3: output differs from the sweep's"
done
note "seeds 1-5 as natively, 5 hashes; seed 3 replays to $h3 twice"
