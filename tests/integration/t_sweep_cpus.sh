#!/bin/bash
# A sweep's workers run on CPUs of their own: with 2 CPUs allowed and -j 2,
# every machine process is pinned to one CPU, two seeds running at once are
# never on the same CPU, and both CPUs serve seeds. (Two workers stacked on
# one CPU would run at half speed each while the other CPU idles.) Watched
# from outside, in /proc, while the sweep runs; -j 1 and -j 2 give the same
# hashes (t_sweep checks every field).
. "$(dirname "$0")/lib.sh"
[ "$(nproc)" -ge 2 ] || { note "fewer than 2 CPUs allowed here: nothing to spread over"; exit 77; }
# A name no other test's process has, so that only this sweep's are watched.
probe=$TMP/cpus$$
cp "$(build locked_counter)" "$probe" || fail "cannot copy locked_counter"
name=$(basename "$probe")
write_conf "$TMP/c.conf" <<CONF
[simulation]
duration = 60s
[machine counter]
command = exec $probe 3 1500
CONF

timeout -k 5 300 "$DSIM" run "$TMP/c.conf" --seeds 1-8 -j 2 --results "$TMP/j2.jsonl" >"$TMP/j2.out" 2>&1 &
sweep=$!
# Snapshots of the live probe processes: "pid cpus" lines, a blank line each.
while kill -0 "$sweep" 2>/dev/null; do
    awk -v n="$name" 'FNR == 1 { ok = 0 } $1 == "Name:" { ok = $2 == n } $1 == "Pid:" { p = $2 }
         $1 == "State:" && $2 == "Z" { ok = 0 } ok && $1 == "Cpus_allowed_list:" { print p, $2 }' \
        /proc/[0-9]*/status 2>/dev/null
    echo
    sleep 0.02
done >"$TMP/snaps"
wait "$sweep" || { cat "$TMP/j2.out" >&2; fail "the -j 2 sweep failed"; }
timeout -k 5 300 "$DSIM" run "$TMP/c.conf" --seeds 1-8 -j 1 --results "$TMP/j1.jsonl" >/dev/null 2>&1 ||
    fail "the -j 1 sweep failed"
hashes() { sed 's/.*"seed":\([0-9]*\).*"hash":"\([0-9a-f]*\)".*/\1 \2/' "$1"; }
[ "$(hashes "$TMP/j1.jsonl" | wc -l)" = 8 ] || fail "want 8 results"
diff <(hashes "$TMP/j1.jsonl") <(hashes "$TMP/j2.jsonl") >&2 || fail "-j 1 and -j 2 hashes differ"

[ -s "$TMP/snaps" ] && grep -q . "$TMP/snaps" || fail "never saw a machine process running"
awk '$2 ~ /[-,]/ { print "pid " $1 " may run on CPUs " $2; bad = 1 } END { exit bad }' "$TMP/snaps" >&2 ||
    fail "a machine process is not pinned to one CPU"
# In each snapshot, distinct processes (two seeds at once) on distinct CPUs.
awk 'NF == 0 { delete on; next } { if ($2 in on && on[$2] != $1 && !((on[$2] " " $1) in said)) {
         print "pids " on[$2] " and " $1 " both on CPU " $2; said[on[$2] " " $1]; bad = 1 }
     on[$2] = $1 } END { exit bad }' "$TMP/snaps" >&2 || fail "two seeds ran pinned to the same CPU"
together=$(awk 'NF == 0 { if (n >= 2) k++; n = 0; next } { n++ } END { print k + 0 }' "$TMP/snaps")
[ "$together" -ge 1 ] || fail "never saw two seeds running at once with -j 2"
cpus=$(awk 'NF { print $2 }' "$TMP/snaps" | sort -u | wc -l)
[ "$cpus" = 2 ] || fail "the seeds ran on $cpus CPU(s), want 2"
note "$(grep -c . "$TMP/snaps") sightings, $together snapshots with two seeds at once, on 2 CPUs"
