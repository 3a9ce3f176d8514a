#!/bin/bash
# O_SYNC and O_DSYNC: a write through an fd opened with either flag is
# durable when it returns. An append-only log that acknowledges each record
# after one such write (osync_log, never calling fsync after its start)
# loses no acknowledged record over 30 seeds with crashes, with either
# flag; the same log opened with neither flag loses one on some seed, which
# replays to one hash and whose trace shows the disk decision.
. "$(dirname "$0")/lib.sh"
prog=$(build osync_log)
conf() { crash_log_conf "$TMP/$1.conf" log "$prog --$1 /var/tmp/osync.log"; }
conf none
conf osync
conf dsync
seed=$(first_failure "$TMP/none.conf" 1-30 "writes without O_SYNC/O_DSYNC") || exit 1
for flag in osync dsync; do
    all_pass "$TMP/$flag.conf" 1-30 "writes through an fd opened with --$flag lost an acknowledged record"
done
one_hash "$TMP/none.conf" "$seed" >/dev/null || exit 1
disk_decisions "$TMP/none.conf" "$seed" | grep -Eq "osync.log (rolled back|lost|torn)" || fail "no disk decision in the trace"
note "plain writes lost a record at seed $seed; O_SYNC and O_DSYNC writes lost none in 30 seeds"
