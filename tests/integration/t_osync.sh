#!/bin/bash
# O_SYNC and O_DSYNC: a write through an fd opened with either flag is
# durable when it returns. An append-only log that acknowledges each record
# after one such write (osync_log, never calling fsync after its start)
# loses no acknowledged record over 30 seeds with crashes, with either
# flag; the same log opened with neither flag loses one on some seed, which
# replays to one hash and whose trace shows the disk decision.
. "$(dirname "$0")/lib.sh"
prog=$(build osync_log)
cat >"$TMP/check.sh" <<'SH'
awk '/^ack /{a=$2} /^recovered /{if ($2 < a) {print "LOST: acked " a ", recovered " $2; bad=1}} END{exit bad}' log.stdout
SH
conf() {
    write_conf "$TMP/$1.conf" <<CONF
[simulation]
duration = 60s
[machine log]
command = exec $prog --$1 /var/tmp/osync.log
command-after-restart = exec $prog --$1 /var/tmp/osync.log
[chaos]
machines = log
crash = 2s
crash_down = 100ms..500ms
[check]
command = sh $TMP/check.sh
CONF
}
conf none
conf osync
conf dsync
timeout -k 5 300 "$DSIM" run "$TMP/none.conf" --seeds 1-30 >"$TMP/none.out"
[ $? = 1 ] || { cat "$TMP/none.out"; fail "writes without O_SYNC/O_DSYNC never lost an acknowledged record"; }
seed=$(sed -n 's/^seed \([0-9]*\) FAILED: the check command failed.*/\1/p' "$TMP/none.out" | head -n 1)
[ -n "$seed" ] || { cat "$TMP/none.out"; fail "the log without O_SYNC failed for another reason"; }
for flag in osync dsync; do
    timeout -k 5 300 "$DSIM" run "$TMP/$flag.conf" --seeds 1-30 --keep-going >"$TMP/$flag.out" ||
        { grep -A3 FAILED "$TMP/$flag.out"; fail "writes through an fd opened with --$flag lost an acknowledged record"; }
done
h=$(timeout -k 5 60 "$DSIM" verify "$TMP/none.conf" --seed "$seed" --runs 2 | tail -n 1)
[ ${#h} = 32 ] || fail "seed $seed did not replay with one hash"
timeout -k 5 60 "$DSIM" replay "$TMP/none.conf" "$seed" --trace "$TMP/t.gz" >/dev/null
"$DSIM" trace "$TMP/t.gz" --syscall disk: | grep -Eq "osync.log (rolled back|lost|torn)" || fail "no disk decision in the trace"
note "plain writes lost a record at seed $seed; O_SYNC and O_DSYNC writes lost none in 30 seeds"
