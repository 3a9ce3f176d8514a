#!/bin/bash
# A run's directory is a tmpfs in dsim's own mount namespace, so the host's
# TMPDIR holds only its lock: with TMPDIR on a 1 MiB file system, a machine
# prints 8 MiB and all of it reaches --output (it used to be lost, and the
# check failed with no message). Past the run directory's own size (the
# machines' disks, 256 MiB each and 64 MiB: here 336 MiB) writes to
# stdout (and stderr) fail with ENOSPC, the same on every host, and the
# report says the run directory was full; one seed, one hash. The small TMPDIR is mounted
# in a private mount namespace of the test's own.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/small"
write_conf "$TMP/big.conf" <<CONF
[simulation]
duration = 30s
[machine m]
command = yes x | tr -d '\\n' | head -c 8388608
CONF
unshare -m --propagation private sh -c '
    mount -t tmpfs -o size=1m tmpfs "$1/small" || exit 99
    TMPDIR="$1/small" timeout -k 5 120 "$2" run "$1/big.conf" --seeds 1-2 --output "$1/out"' sh "$TMP" "$DSIM" \
    >"$TMP/big.out" 2>&1
rc=$?
[ $rc != 99 ] || fail "cannot mount a small tmpfs for TMPDIR"
[ $rc = 0 ] || { cat "$TMP/big.out" >&2; fail "a run with TMPDIR on 1 MiB failed"; }
for s in 1 2; do
    n=$(tr -d x <"$TMP/out/seed-$s/m.stdout" | wc -c; wc -c <"$TMP/out/seed-$s/m.stdout")
    [ "$n" = "0
8388608" ] || fail "seed $s: the machine's 8 MiB did not all reach the output ($n)"
done

write_conf "$TMP/full.conf" <<CONF
[simulation]
duration = 60s
[machine m]
command = dd if=/dev/zero bs=4M count=100 status=none
disk = 16M
CONF
timeout -k 5 180 "$DSIM" replay "$TMP/full.conf" 1 --output "$TMP/full" --trace "$TMP/full.trace" >"$TMP/full.out" 2>&1
[ $? = 1 ] && grep -q "machine m exited with status 1" "$TMP/full.out" ||
    { cat "$TMP/full.out" >&2; fail "dd did not fail on the full run directory"; }
size=$(stat -c %s "$TMP/full/seed-1/m.stdout")
[ "$size" -gt $((300 << 20)) ] && [ "$size" -lt $((336 << 20)) ] || fail "the output stopped at $size bytes"
grep -q "run directory full (336 MiB)" "$TMP/full.out" || fail "the report does not say the run directory was full"
h=$(one_hash "$TMP/full.conf" 1) || exit 1
note "8 MiB output with TMPDIR on 1 MiB; a full run directory stops outputs at $size bytes (ENOSPC), hash $h"
