#!/bin/bash
# etcd under dsim: a 3-member cluster (e1, e2, e3, unmodified Debian etcd
# 3.4) and a client that puts keys through any member with etcdctl, while
# [chaos] crashes members (each restarts from its own disk, whose unsynced
# writes the crash decides) and partitions them. Raft and etcd's WAL keep
# every acknowledged put: seeds 1-2 pass the check (every acked key is
# there at the end), the trace shows crashes, partitions and disk
# decisions, and seed 1 replays to one hash. Then a warm start of the
# members at their first network call, and one after their election (each
# member's WAL directory held open, its bbolt database mapped shared, its
# peers' connections idle), and one during it (connections with bytes not
# yet read, one closed by its client): seeds from the snapshot have their
# cold hashes.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 300
command -v etcd >/dev/null && command -v etcdctl >/dev/null || fail "etcd and etcdctl are needed (apt-get install etcd-server etcd-client)"
E=$PROGS/etcd
write_conf "$TMP/etcd.conf" <<CONF
[simulation]
duration = 120s
[machine e1]
command = exec $E/node.sh e1
command-after-restart = exec $E/node.sh e1
daemon = true
[machine e2]
command = exec $E/node.sh e2
command-after-restart = exec $E/node.sh e2
daemon = true
[machine e3]
command = exec $E/node.sh e3
command-after-restart = exec $E/node.sh e3
daemon = true
[machine client]
start = 3s
command = exec $E/client.sh 25
[chaos]
machines = e1 e2 e3
crash = 3s
crash_down = 500ms..2s
partition = 4s
partition_for = 500ms..2s
[check]
command = awk -f $PROGS/lost_keys.awk client.stdout
CONF
all_pass "$TMP/etcd.conf" 1-2 "etcd lost an acknowledged put, or failed otherwise"
"$DSIM" replay "$TMP/etcd.conf" 1 --trace "$TMP/t.gz" --output "$TMP/out" >"$TMP/rep.out" 2>&1 || fail "seed 1 did not pass on replay"
"$DSIM" trace "$TMP/t.gz" --syscall fault >"$TMP/faults.txt"
grep -q ': crash' "$TMP/faults.txt" && grep -q ': partition' "$TMP/faults.txt" ||
    { cat "$TMP/faults.txt" >&2; fail "seed 1 had no crash or no partition"; }
acks=$(grep -c '^ack ' "$TMP/out/seed-1/client.stdout")
h1=$(sed -n 's/^trace hash //p' "$TMP/rep.out")
"$DSIM" replay "$TMP/etcd.conf" 1 >"$TMP/rep2.out" 2>&1
h2=$(sed -n 's/^trace hash //p' "$TMP/rep2.out")
[ -n "$h1" ] && [ "$h1" = "$h2" ] || fail "seed 1 replayed to $h1, then $h2"
note "etcd: seeds 1-2 keep every acked put; seed 1: $(grep -c ': crash' "$TMP/faults.txt") crashes, $(grep -c ': partition' "$TMP/faults.txt") partitions, $acks acks, $("$DSIM" trace "$TMP/t.gz" --syscall disk: | wc -l) disk decisions, hash $h1 twice"

# Warm start from a snapshot: the three members started once per worker and
# copied at their first network call (go-systemd's journal socket, an
# autobound unix datagram socket, and Go's edge-triggered netpoll set are
# made anew in each copy), the client started after the point in each seed:
# seeds 1-3 have their cold runs' hashes, and keep every acked put.
write_conf "$TMP/warm.conf" <<CONF
[simulation]
duration = 20s
warm_start = network
[machine e1]
command = exec $E/node.sh e1
daemon = true
[machine e2]
command = exec $E/node.sh e2
daemon = true
[machine e3]
command = exec $E/node.sh e3
daemon = true
[machine client]
start = 3s
command = exec $E/client.sh 5
[check]
command = awk -f $PROGS/lost_keys.awk client.stdout
CONF
h=$(warm_vs_cold "$TMP/warm.conf" 1-3 etcd-warm) || exit 1
note "etcd warm: seeds 1-3 from the snapshot have their cold hashes ($(cut -c1-8 <<<"$h")...)"

# After the election, just before the client starts: each copy opens its
# WAL directory again and maps its own disk's bbolt file over the
# template's (a shared mapping of a file open for writing).
sed 's/^warm_start = network$/warm_start = 2900ms/' "$TMP/warm.conf" >"$TMP/elected.conf"
h=$(warm_vs_cold "$TMP/elected.conf" 1-2 etcd-elected) || exit 1
note "etcd warm after its election: seeds 1-2 from the snapshot have their cold hashes ($(cut -c1-8 <<<"$h")...)"

# Before its election, at 1.5 s: a peer's connection waits in a member's
# backlog with 768 bytes and its client's FIN, that client's socket closed
# (the relay's end of it open still), members' connections holding bytes
# not yet read, each watched by Go's edge-triggered netpoll set.
sed 's/^warm_start = network$/warm_start = 1500ms/' "$TMP/warm.conf" >"$TMP/electing.conf"
h=$(warm_vs_cold "$TMP/electing.conf" 1-2 etcd-electing) || exit 1
note "etcd warm during its election: seeds 1-2 from the snapshot have their cold hashes ($(cut -c1-8 <<<"$h")...)"
