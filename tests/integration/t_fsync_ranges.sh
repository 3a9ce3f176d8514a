#!/bin/bash
# fsync of a file changed piece by piece (fsync_ranges): dsim copies only
# the byte ranges written since the file's last fsync (pwrite, pwritev, a
# write at the file position, appends through an O_APPEND fd) and a
# truncated file whole. A crash right after, and the restarted machine
# reads every synced block back as it was synced, on seeds 1-6 (only the
# last, unsynced write may be kept, rolled back or torn); one seed gives
# one hash. Natively the program's own check passes too.
. "$(dirname "$0")/lib.sh"
prog=$(build fsync_ranges)
( timeout 5 "$prog" write "$TMP/native" >/dev/null; "$prog" check "$TMP/native" >"$TMP/native.out" )
[ "$(cat "$TMP/native.out")" = ok ] || { cat "$TMP/native.out"; fail "the check fails natively"; }
write_conf "$TMP/f.conf" <<CONF
[simulation]
duration = 10s
[machine m]
command = mkdir -p /var/tmp/fr && exec $prog write /var/tmp/fr/f
command-after-restart = exec $prog check /var/tmp/fr/f
[fault crash]
kind = restart
at = 1s
machine = m
duration = 100ms
CONF
all_pass "$TMP/f.conf" 1-6 "a synced block did not survive the crash"
"$DSIM" replay "$TMP/f.conf" 2 --output "$TMP/o" >/dev/null 2>&1
grep -qx ok "$TMP/o/seed-2/m.stdout" || { cat "$TMP/o/seed-2/m.stdout"; fail "the restarted machine did not check ok"; }
h=$(one_hash "$TMP/f.conf" 2) || exit 1
note "every synced block survived the crash on seeds 1-6; seed 2 replays to $h"
