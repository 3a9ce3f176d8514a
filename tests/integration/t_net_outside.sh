#!/bin/bash
# Addresses outside the cluster are unreachable: net_outside's TCP connects
# and UDP sends to public IPv4 and IPv6 addresses and to 10.0.0.200 (in the
# machines' range, but no machine's) each fail with ENETUNREACH under
# `dsim exec`, exactly as natively in a namespace with only lo, and the
# program ends with ok; the same on a machine of a two-machine cluster.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
P=$(build net_outside)

native_net_out "$P"
# Every attempt, natively: ENETUNREACH.
n=$(grep -c ': ENETUNREACH$' "$TMP/native.out")
[ "$n" -ge 6 ] && [ "$(wc -l <"$TMP/native.out")" = $((n + 1)) ] && [ "$(tail -n 1 "$TMP/native.out")" = ok ] ||
    fail "native: not ENETUNREACH for every attempt: $(cat "$TMP/native.out")"

h=$(dsim_as_native --seeds "" "$P") || exit 1

mkdir -p "$TMP/cl"
write_conf "$TMP/cl/c.conf" <<EOF
[network]
latency = 1ms..5ms
[machine a]
command = exec $P
[machine b]
command = exec $P
EOF
"$DSIM" run "$TMP/cl/c.conf" --seeds 1-2 --output "$TMP/out" >"$TMP/run.out" 2>&1 ||
    { cat "$TMP/run.out" >&2; fail "cluster: a seed failed"; }
for s in 1 2; do
    for m in a b; do
        diff "$TMP/native.out" "$TMP/out/seed-$s/$m.stdout" >&2 || fail "cluster: seed $s: machine $m differs from native"
    done
done
note "$n attempts, all ENETUNREACH, as natively; seed 1 hash $h twice"
