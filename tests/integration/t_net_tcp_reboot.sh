#!/bin/bash
# A connection that begins while its server machine reboots: the client's
# SYN leaves before srv crashes (restart fault at 20 ms, back at 30 ms) and,
# with 50 ms of latency, arrives after srv is back and listening again. As on
# Linux, the restarted server accepts it and it is an ordinary connection:
# tcp_blocking's exchange (message, uppercase reply, half-close, "bye", EOF)
# completes on seeds 1-3 and prints what it prints without the reboot. The
# trace confirms the order: connect, crash, restart, SYN arrival.
#
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
B=$(build tcp_blocking)

mkdir -p "$TMP/c"
conf() {    # conf [FAULT-LINES]
    cat <<EOF
[network]
latency = 50ms
[machine srv]
command = exec $B server 0.0.0.0 7100 1
[machine cli]
command = exec $B client srv 7100 1
EOF
    [ -z "${1:-}" ] || printf '[fault reboot]\nkind = restart\nat = 20ms\nmachine = srv\nduration = 10ms\n'
}
conf >"$TMP/c/calm.conf"
conf fault >"$TMP/c/reboot.conf"

"$DSIM" run "$TMP/c/calm.conf" --seeds 1 --output "$TMP/calm" >"$TMP/calm.out" 2>&1 ||
    { cat "$TMP/calm.out" >&2; fail "without the reboot the exchange fails"; }
[ "$(tail -n 1 "$TMP/calm/seed-1/cli.stdout")" = ok ] || fail "without the reboot: $(cat "$TMP/calm/seed-1/cli.stdout")"

"$DSIM" replay "$TMP/c/reboot.conf" 1 --trace "$TMP/t.gz" >"$TMP/rep.out" 2>&1
"$DSIM" trace "$TMP/t.gz" >"$TMP/t.txt" || fail "dsim trace failed"
order=$(awk '$2 == "cli" && $4 ~ /^connect\(/ && !c { c = NR }
             / fault reboot: crash$/ { f = NR }
             $2 == "srv" && / machine restart 1$/ { r = NR }
             / net syn cli .* > srv .*:7100 0$/ { s = NR }
             END { print (c && f && r && s && c < f && f < r && r < s) ? "ok" : "c=" c " f=" f " r=" r " s=" s }' "$TMP/t.txt")
[ "$order" = ok ] || fail "the scenario did not happen (connect, crash, restart, SYN arrival): $order"

"$DSIM" run "$TMP/c/reboot.conf" --seeds 1-3 --keep-going --output "$TMP/out" >"$TMP/run.out" 2>&1 ||
    { grep FAILED "$TMP/run.out" >&2; tail -n +1 "$TMP"/out/seed-1/*.stdout >&2
      fail "a SYN accepted by the restarted server does not make a working connection"; }
for s in 1 2 3; do
    diff "$TMP/calm/seed-1/cli.stdout" "$TMP/out/seed-$s/cli.stdout" >&2 || fail "seed $s: the client's output differs"
    diff "$TMP/calm/seed-1/srv.stdout" "$TMP/out/seed-$s/srv.stdout" >&2 || fail "seed $s: the server's output differs"
done
note "seeds 1-3: the connection made across the reboot works"
