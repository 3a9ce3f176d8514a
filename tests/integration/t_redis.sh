#!/bin/bash
# Redis under power cuts: unmodified Debian redis-server with its
# append-only file, and a client that sets keys and later reads them back,
# while [chaos] crashes the server's machine every 2 s on average. With
# appendfsync always no acknowledged SET is lost over seeds 1-4; with
# appendfsync no some seed loses one (the AOF's unsynced tail is rolled
# back or torn), and that seed replays to one hash.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 300
command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
    fail "redis-server and redis-cli are needed (apt-get install redis-server redis-tools)"
R=$PROGS/redis
conf() {
    write_conf "$TMP/$1.conf" <<CONF
[simulation]
duration = 60s
[machine db]
command = exec $R/server.sh $1
command-after-restart = exec $R/server.sh $1
daemon = true
[machine client]
start = 1s
command = exec $R/client.sh 30
[chaos]
machines = db
crash = 2s
crash_down = 200ms..800ms
[check]
command = awk -f $PROGS/lost_keys.awk client.stdout
CONF
}
conf always
conf no
all_pass "$TMP/always.conf" 1-4 "appendfsync always lost an acknowledged SET"
seed=$(first_failure "$TMP/no.conf" 1-8 "appendfsync no") || exit 1
grep -q '^ *LOST k' "$TMP/first_failure.out" || fail "the check did not name a lost key"
h=$(one_hash "$TMP/no.conf" "$seed") || exit 1
note "redis: appendfsync always kept every SET in seeds 1-4; appendfsync no lost one at seed $seed, replays to $h"

# A warm start once redis is ready ("Ready to accept connections"): its
# listener is copied into each seed (supervisor/snapnet.c); seeds 1-4 from
# the snapshot have their cold runs' hashes, one each.
mkdir -p "$TMP/warm"
write_conf "$TMP/warm/warm.conf" <<CONF
[simulation]
duration = 30s
warm_start = output db Ready to accept connections
[machine db]
command = exec $R/server.sh always
daemon = true
[machine client]
start = 1s
command = exec $R/client.sh 30
[check]
command = awk -f $PROGS/lost_keys.awk client.stdout
CONF
h=$(warm_vs_cold "$TMP/warm/warm.conf" 1-4 redis-ready) || exit 1
[ "$(tr ' ' '\n' <<<"$h" | sort -u | wc -l)" -gt 1 ] || fail "redis ready: seeds 1-4 gave one hash"
note "redis copied at its 'Ready to accept connections': seeds 1-4 with their cold hashes"
