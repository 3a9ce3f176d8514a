#!/bin/bash
# PostgreSQL under crashes: Debian's postgresql-15 server on machine db
# (its data directory made with initdb in the test's scratch directory
# before the runs), and a Python client (psycopg2) on machine client making
# money transfers between 10 accounts over TCP, one transaction each, while
# [chaos] crashes db every second on average and restarts it (crash
# recovery from its WAL). After each crash the client checks that every
# transfer whose COMMIT returned is still there and that the total is
# unchanged, and again at the end (bank_check.awk).
#  - With the default settings every seed of the sweep keeps every
#    committed transfer across the crashes that hit the workload, and a
#    sampled seed replays to the same hash (--verify-sample).
#  - With synchronous_commit = off (a commit returns before its WAL is
#    flushed) a seed loses a committed transfer, and replays to one hash.
# make check runs seeds 1-2 of 150 transfers; `make check-postgres` (CI)
# runs PG_SEEDS=1-10 of PG_TRANSFERS=300.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 600
SEEDS=${PG_SEEDS:-1-2}
TRANSFERS=${PG_TRANSFERS:-150}
PGBIN=/usr/lib/postgresql/15/bin
[ -x $PGBIN/postgres ] && [ -x $PGBIN/initdb ] ||
    fail "PostgreSQL 15 is needed (apt-get install postgresql-15)"
/usr/bin/python3 -c 'import psycopg2' 2>/dev/null || fail "psycopg2 is needed (apt-get install python3-psycopg2)"
P=$PROGS/postgres

# The data directory, made natively once; every run starts from it (the
# machine's overlay keeps what a run writes).
chmod 755 "$TMP"
mkdir "$TMP/pg"
as=
if [ "$(id -u)" = 0 ]; then
    chown postgres: "$TMP/pg"
    as="setpriv --reuid=postgres --regid=postgres --init-groups"
fi
$as $PGBIN/initdb --no-sync -D "$TMP/pg/data" -A trust -U postgres >"$TMP/initdb.out" 2>&1 ||
    { cat "$TMP/initdb.out"; fail "initdb failed"; }
printf 'host all all 0.0.0.0/0 trust\nhost all all ::/0 trust\n' >>"$TMP/pg/data/pg_hba.conf"

conf() {
    write_conf "$TMP/$1.conf" <<CONF
[simulation]
duration = 120s
[machine db]
command = exec $P/server.sh $TMP/pg/data $2
command-after-restart = exec $P/server.sh $TMP/pg/data $2
daemon = true
[machine client]
start = 1s
command = exec /usr/bin/python3 $P/bank.py db $TRANSFERS
[chaos]
machines = db
crash = 1s
crash_down = 200ms..800ms
[check]
command = awk -f $P/bank_check.awk client.stdout
CONF
}
conf durable ""
conf async "synchronous_commit=off"

start=$(date +%s)
"$DSIM" run "$TMP/durable.conf" --seeds "$SEEDS" -j 2 --keep-going --verify-sample 1 --results "$TMP/durable.jsonl" \
    --output "$TMP/durable" >"$TMP/durable.out" 2>&1 ||
    { grep -A14 -E 'FAILED|nondeterministic' "$TMP/durable.out" >&2; fail "PostgreSQL lost a committed transfer or money, or a seed did not replay"; }
took=$(( $(date +%s) - start ))
crashes=$(cat "$TMP"/durable/seed-*/client.stdout | grep -c '^after a crash')
[ "$crashes" -ge 2 ] || fail "only $crashes crashes hit the transfers over seeds $SEEDS"
acks=$(cat "$TMP"/durable/seed-*/client.stdout | grep -c '^ack ')
replayed=$(grep -c '"replayed": *true' "$TMP/durable.jsonl")
[ "$replayed" = 1 ] || fail "no seed was replayed"
note "synchronous_commit on: seeds $SEEDS kept all $acks committed transfers through $crashes crashes; a sampled seed replayed to its hash ($took s)"

# The same with synchronous_commit off: the first seed of 1-4 that loses a
# committed transfer, run twice.
for seed in 1 2 3 4; do
    timeout -k 5 600 "$DSIM" verify "$TMP/async.conf" --seed $seed --runs 2 >"$TMP/async.out" 2>&1
    grep -Eq '^run 1: [0-9a-f]{32} check$' "$TMP/async.out" && break
done
grep -Eq '^run 1: [0-9a-f]{32} check$' "$TMP/async.out" || { cat "$TMP/async.out"; fail "synchronous_commit off lost nothing on seeds 1-4"; }
[ "$(grep -Ec '^run [12]: [0-9a-f]{32} check$' "$TMP/async.out")" = 2 ] && h=$(tail -n 1 "$TMP/async.out") && [ ${#h} = 32 ] ||
    { cat "$TMP/async.out"; fail "synchronous_commit off: seed $seed did not replay to one hash"; }
timeout -k 5 600 "$DSIM" replay "$TMP/async.conf" $seed --output "$TMP/async" >/dev/null 2>&1
grep -q '^LOST' "$TMP/async/seed-$seed/client.stdout" || fail "synchronous_commit off: the client did not report a lost commit"
note "synchronous_commit off: seed $seed lost a committed transfer ($(grep -m1 '^LOST' "$TMP/async/seed-$seed/client.stdout")), replays to $h"
