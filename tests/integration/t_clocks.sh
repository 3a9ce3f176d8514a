#!/bin/bash
# clocks.c under dsim: every clock id works (clock_gettime never goes
# backwards over 1000 reads, clock_getres gives a sane resolution),
# gettimeofday and time agree with CLOCK_REALTIME, and an invalid clock id is
# EINVAL -- the native output, line for line. CLOCK_REALTIME starts at one
# fixed epoch (the same on every seed, between 2000 and 2100); one seed gives
# one hash.
. "$(dirname "$0")/lib.sh"

dsim_timeout

prog=$(build clocks) || exit 1
epoch() { sed -n 's/^realtime_seconds \([0-9][0-9]*\)$/\1/p' "$1"; }

# Natively: only "ok" lines, 2 per clock and 4 more, the same every time.
"$prog" >"$TMP/native.out" || { cat "$TMP/native.out" >&2; fail "clocks failed natively"; }
[ "$(wc -l <"$TMP/native.out")" = 22 ] || { cat "$TMP/native.out" >&2; fail "native: expected 22 lines"; }
[ "$(grep -c '^ok ' "$TMP/native.out")" = 22 ] || fail "native: not all lines are ok lines"
for c in REALTIME MONOTONIC PROCESS_CPUTIME_ID THREAD_CPUTIME_ID MONOTONIC_RAW REALTIME_COARSE \
         MONOTONIC_COARSE BOOTTIME TAI; do
    [ "$(grep -c "^ok CLOCK_$c: " "$TMP/native.out")" = 2 ] || fail "native: no 2 ok lines for CLOCK_$c"
done
for i in 1 2; do
    "$prog" >"$TMP/native2.out" || fail "clocks failed natively"
    diff "$TMP/native.out" "$TMP/native2.out" >&2 || fail "native output is not deterministic"
done
# --print-epoch natively: the current time, then the same ok lines.
"$prog" --print-epoch >"$TMP/native_epoch.out" || fail "clocks --print-epoch failed natively"
e=$(epoch "$TMP/native_epoch.out"); now=$(date +%s)
[ -n "$e" ] && [ $((e - now)) -le 5 ] && [ $((now - e)) -le 5 ] || fail "native: realtime_seconds '$e' is not now ($now)"
grep -v '^realtime_seconds ' "$TMP/native_epoch.out" | diff "$TMP/native.out" - >&2 ||
    fail "native: --print-epoch changes the other lines"

# Under dsim: the native lines, plus the epoch; one seed twice, one hash.
h1=$(same_hash_twice 1 "$prog" --print-epoch) || exit 1
note "seed 1 hash $h1"
cp "$TMP/a.out" "$TMP/s1.out"
dsim_exec 2 "$prog" --print-epoch >"$TMP/s2.out"; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/s2.out" "$TMP/exec.err" >&2; fail "seed 2: exit $rc"; }
[ -n "$(exec_hash)" ] || fail "seed 2: no trace hash"
for s in 1 2; do
    grep -v '^realtime_seconds ' "$TMP/s$s.out" | diff "$TMP/native.out" - >&2 ||
        fail "seed $s: output differs from native"
done

# A fixed epoch: the same seconds on both seeds, between 2000-01-01
# (946684800) and 2100-01-01 (4102444800), and not the real time.
e1=$(epoch "$TMP/s1.out"); e2=$(epoch "$TMP/s2.out")
[ -n "$e1" ] && [ -n "$e2" ] || fail "no realtime_seconds line under dsim"
[ "$e1" = "$e2" ] || fail "the epoch differs between seeds: $e1 vs $e2"
[ "$e1" -ge 946684800 ] && [ "$e1" -lt 4102444800 ] || fail "epoch $e1 is not in 2000..2100"
now=$(date +%s)
[ $((now - e1)) -gt 60 ] || [ $((e1 - now)) -gt 60 ] || fail "epoch $e1 is the real time, not a fixed one"
note "epoch $e1 ($(date -u -d "@$e1" '+%Y-%m-%d %H:%M:%S' 2>/dev/null))"
note "ok"
