#!/bin/bash
# Per-machine clocks: an offset and a drift shift and stretch the wall
# clock; a scheduled clock_jump moves it back; the monotonic clock follows
# the drift but never goes back. One seed gives one hash. All of it with
# clock_reads = stop and page (the clock page's stub computes the offset
# and drift itself).
. "$(dirname "$0")/lib.sh"
prog=$(build clock_readings)
for mode in stop page; do
note "clock_reads = $mode"
write_conf "$TMP/c.conf" <<CONF
[simulation]
duration = 100s
clock_reads = $mode
[machine skewed]
command = exec $prog 4
clock_offset = -5s
clock_drift = 1000ppm
[machine plain]
command = exec $prog 4
[fault back]
kind = clock_jump
at = 25s
machine = skewed
by = -60s
CONF
timeout -k 5 60 "$DSIM" run "$TMP/c.conf" --seeds 1 -j 1 --output "$TMP/out" >"$TMP/run.out" || { cat "$TMP/run.out"; fail "run failed"; }
python3 - "$TMP/out/seed-1" <<'PY' || fail "clock readings do not follow the configured skew"
import sys
def rows(name):
    return [tuple(map(float, l.split())) for l in open(f"{sys.argv[1]}/{name}.stdout")]
epoch = 1735689600.0
p, s = rows("plain"), rows("skewed")
assert abs(p[0][0] - epoch) < 0.1, p[0]                    # the fixed epoch
assert abs(s[0][0] - (epoch - 5)) < 0.1, s[0]              # clock_offset = -5s
for (r0, m0), (r1, m1) in zip(p, p[1:]):                   # no drift: 10 s per sleep
    assert abs((m1 - m0) - 10) < 0.01 and abs((r1 - r0) - 10) < 0.01, (m0, m1)
for i, ((r0, m0), (r1, m1)) in enumerate(zip(s, s[1:])):
    assert m1 > m0 and abs((m1 - m0) - 10.01) < 0.001, (i, m0, m1)  # 1000 ppm fast, never back
    dr = r1 - r0
    if i == 2:                                             # the sleep across t = 25s
        assert abs(dr - (10.01 - 60)) < 0.001, (i, dr)     # the jump back by 60 s
    else:
        assert abs(dr - 10.01) < 0.001, (i, dr)
PY
grep -q "fault back: clock_jump by -60000000000ns" <(timeout -k 5 60 "$DSIM" replay "$TMP/c.conf" 1 --trace "$TMP/t.gz" >/dev/null; "$DSIM" trace "$TMP/t.gz" --syscall fault) ||
    fail "the trace has no clock_jump event"
h1=$(timeout -k 5 60 "$DSIM" verify "$TMP/c.conf" --seed 1 --runs 2 | tail -n 1)
[ ${#h1} = 32 ] || fail "verify did not agree: $h1"
done
