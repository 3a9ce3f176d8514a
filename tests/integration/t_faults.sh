#!/bin/bash
# Scheduled crash, restart and pause faults: a crash kills the machine's
# whole process tree at its time and, after `duration`, runs
# command-after-restart; a crash without a duration leaves it down without
# failing the seed; a pause stops a machine's threads for a while. One seed
# gives one hash.
. "$(dirname "$0")/lib.sh"
write_conf "$TMP/c.conf" <<CONF
[simulation]
duration = 60s
[machine svc]
command = echo "start \$(cut -d' ' -f1 /proc/uptime)"; sleep 1000 & sleep 1000
command-after-restart = echo "restarted \$(cut -d' ' -f1 /proc/uptime)"
[machine gone]
command = echo "gone started"; exec sleep 1000
[machine ticker]
command = exec /usr/bin/python3 -c 'import time; t = time.monotonic(); [(time.sleep(1), print(int(time.monotonic() - t))) for _ in range(8)]'
[fault crash-svc]
kind = crash
at = 5s
machine = svc
duration = 2s
[fault crash-gone]
kind = crash
at = 3s
machine = gone
[fault nap]
kind = pause
at = 2500ms
machine = ticker
duration = 4s
CONF
timeout -k 5 60 "$DSIM" run "$TMP/c.conf" --seeds 1 -j 1 --output "$TMP/out" >"$TMP/run.out" ||
    { cat "$TMP/run.out"; fail "the seed failed"; }
log="$TMP/out/seed-1/svc.stdout"      # one file across the machine's incarnations
grep -q "^start " "$log" && grep -q "^gone started" "$TMP/out/seed-1/gone.stdout" || fail "machines did not start"
up=$(sed -n 's/^restarted //p' "$log")
[ -n "$up" ] || fail "svc did not restart with command-after-restart: $(cat "$log")"
python3 -c "import sys; u = float(sys.argv[1]); sys.exit(0 if 106.9 < u < 107.2 else 1)" "$up" ||
    fail "svc restarted at uptime $up, want 107 (100 s boot + crash at 5 s + 2 s down)"
# The ticker sleeps 1 s at a time; the pause from 2.5 s to 6.5 s holds the
# sleep due at 3 s until 6.5 s, one long gap in what it prints.
ticks=$(tr '\n' ' ' <"$TMP/out/seed-1/ticker.stdout")
[ "$ticks" = "1 2 6 7 8 9 10 11 " ] || fail "ticker printed $ticks"
timeout -k 5 60 "$DSIM" replay "$TMP/c.conf" 1 --trace "$TMP/t.gz" >/dev/null
"$DSIM" trace "$TMP/t.gz" --syscall fault >"$TMP/f.txt"
grep -q "crash-gone: crash, down for good" "$TMP/f.txt" && grep -q "crash-svc: crash$" "$TMP/f.txt" &&
    grep -q "nap: pause for 4000000000ns" "$TMP/f.txt" || fail "fault events: $(cat "$TMP/f.txt")"
"$DSIM" trace "$TMP/t.gz" --syscall machine | grep -q "^7.0[0-9]* svc 2 machine restart 1$" || fail "no restart at 7 s"
h=$(timeout -k 5 60 "$DSIM" verify "$TMP/c.conf" --seed 1 --runs 2 | tail -n 1)
[ ${#h} = 32 ] || fail "verify disagreed: $h"
