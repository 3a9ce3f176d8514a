#!/bin/bash
# py_entropy.py under dsim: CPython's randomness (random, os.urandom, uuid4,
# uuid1 (libuuid asks the interfaces for a MAC: only lo),
# the str hash seed) follows the seed, time is virtual, and one seed gives
# one output and one trace hash.
. "$(dirname "$0")/lib.sh"

dsim_timeout

PY=/usr/bin/python3
prog=$PROGS/py_entropy.py
KEYS='random urandom uuid4 uuid1 hash pid id time monotonic native_id'

val() { sed -n "s/^$1 //p" "$2"; }

# Shape of the output: 3 threads x 10 keys, then the main thread's 2 lines.
check_shape() {
    local f=$1 i k
    [ "$(wc -l <"$f")" = 32 ] || fail "$f: expected 32 lines, got $(wc -l <"$f")"
    for i in 0 1 2; do
        for k in $KEYS; do
            [ -n "$(val "t$i $k" "$f")" ] || fail "$f: no t$i $k"
        done
    done
}

"$PY" "$prog" >"$TMP/native.out" || fail "py_entropy failed natively"
check_shape "$TMP/native.out"

h1=$(same_hash_twice 1 "$PY" "$prog") || exit 1
cp "$TMP/a.out" "$TMP/s1.out"
check_shape "$TMP/s1.out"
note "seed 1 hash $h1"

dsim_exec 2 "$PY" "$prog" >"$TMP/s2.out" || { cat "$TMP/exec.err" >&2; fail "seed 2 failed"; }
h2=$(exec_hash)
check_shape "$TMP/s2.out"
[ -n "$h2" ] || fail "seed 2: no trace hash"
[ "$h1" != "$h2" ] || fail "seeds 1 and 2 have the same trace hash"
! cmp -s "$TMP/s1.out" "$TMP/s2.out" || fail "seeds 1 and 2 print the same output"

# The seeded values differ between seeds, for every thread.
for i in 0 1 2; do
    for k in random urandom uuid4; do
        [ "$(val "t$i $k" "$TMP/s1.out")" != "$(val "t$i $k" "$TMP/s2.out")" ] ||
            fail "t$i $k is the same on seeds 1 and 2"
    done
done
[ "$(val "t0 hash" "$TMP/s1.out")" != "$(val "t0 hash" "$TMP/s2.out")" ] ||
    fail "hash(\"abc\") is the same on seeds 1 and 2 (hash seed not from the seeded entropy)"

# Within a run: the threads drew different values, and the hash seed is per
# process (all threads agree).
for k in random urandom uuid4 uuid1 native_id; do
    n=$(for i in 0 1 2; do val "t$i $k" "$TMP/s1.out"; done | sort -u | wc -l)
    [ "$n" = 3 ] || fail "$k: threads do not have 3 distinct values"
done
n=$(for i in 0 1 2; do val "t$i hash" "$TMP/s1.out"; done | sort -u | wc -l)
[ "$n" = 1 ] || fail "hash(\"abc\") differs between threads of one process"

# The process is pid 2 in its namespace, on both seeds; its main thread's
# native id is its pid.
for f in "$TMP/s1.out" "$TMP/s2.out"; do
    for i in 0 1 2; do
        [ "$(val "t$i pid" "$f")" = 2 ] || fail "$f: t$i pid is not 2"
    done
    [ "$(val "main pid" "$f")" = 2 ] || fail "$f: main pid is not 2"
    [ "$(val "main native_id" "$f")" = 2 ] || fail "$f: main native_id is not 2"
done

# time.time() is virtual: a plausible fixed epoch (year 2000..2100) on both
# seeds, and both seeds start from the same epoch (within an hour).
"$PY" - "$TMP/s1.out" "$TMP/s2.out" <<'EOF' || fail "time.time() check failed"
import sys, time
ts = []
for path in sys.argv[1:]:
    for line in open(path):
        f = line.split()
        if len(f) == 3 and f[1] == "time":
            t = float(f[2])
            year = time.gmtime(t).tm_year
            if not 2000 <= year <= 2100:
                sys.exit("%s: time.time() %r is in year %d" % (path, t, year))
            ts.append(t)
if len(ts) != 6:
    sys.exit("expected 6 time lines, got %d" % len(ts))
if max(ts) - min(ts) > 3600:
    sys.exit("time.time() values span %.0f s across seeds: not one fixed epoch" % (max(ts) - min(ts)))
EOF
note "ok"
