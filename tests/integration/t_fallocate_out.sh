#!/bin/bash
# fallocate on a machine's standard output and error, files outside its
# disk (in the run directory under dsim run, the caller's file under dsim
# exec), finds no room: ENOSPC as on a full file system (after Linux's own
# EINVAL/EBADF checks), through a reopened /proc/self/fd/1 too, and for
# glibc's posix_fallocate (which after EOPNOTSUPP would write a byte into
# every block itself). A file on the machine's disk still takes a
# fallocate. One seed, one hash.
# Harmless even if dsim were wrong: dsim runs in a private mount namespace
# with its TMPDIR (and the output file) on a 32 MiB tmpfs, where a terabyte
# can only meet ENOSPC.
. "$(dirname "$0")/lib.sh"
[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"
[ "$(id -u)" = 0 ] || fail "needs root (a tmpfs in a private mount namespace)"
P=$(build fallocate_out)
mkdir -p "$TMP/small"
cat >"$TMP/inner.sh" <<EOF
set -e
mount -t tmpfs -o size=32m tmpfs "$TMP/small"
export TMPDIR="$TMP/small"
cat >"$TMP/small/f.conf" <<CONF
[machine main]
command = exec $P
CONF
timeout -k 5 60 "$DSIM" verify "$TMP/small/f.conf" --seed 1 --runs 2 >"$TMP/verify.out" 2>&1
timeout -k 5 60 "$DSIM" run "$TMP/small/f.conf" --seeds 1 --output "$TMP/small/out" >/dev/null 2>&1
cp "$TMP/small/out/seed-1/main.stdout" "$TMP/run.out"
timeout -k 5 60 "$DSIM" exec --seed 1 -- $P >"$TMP/small/exec.out" 2>/dev/null
cp "$TMP/small/exec.out" "$TMP/exec.out"
df -k "$TMP/small" | awk 'NR == 2 { print \$3 }' >"$TMP/used"
EOF
unshare -m sh "$TMP/inner.sh" || { cat "$TMP/verify.out" 2>/dev/null >&2; fail "the runs failed"; }
h=$(tail -n 1 "$TMP/verify.out")
[ ${#h} = 32 ] || fail "seed 1 did not replay with one hash: $(cat "$TMP/verify.out")"
cat >"$TMP/expected" <<'EOF'
stdout KEEP_SIZE 1 TiB: ENOSPC
stderr KEEP_SIZE 1 TiB: ENOSPC
stdout 1 TiB: ENOSPC
stdout len 0: EINVAL
stdout posix_fallocate: ENOSPC
reopened stdout KEEP_SIZE 1 TiB: ENOSPC
read-only stdout: EBADF
stdout blocks below 1 MiB: 1
disk file 1 MiB: ok
disk file size: 1048576
EOF
diff "$TMP/expected" "$TMP/run.out" >&2 || fail "dsim run: the output files took a fallocate"
# dsim exec: stdout is the caller's file; stderr (dsim's own) the caller's too.
grep -q '^stdout posix_fallocate: ENOSPC$' "$TMP/exec.out" || fail "dsim exec: the caller's file took a fallocate: $(cat "$TMP/exec.out")"
grep -q '^disk file size: 1048576$' "$TMP/exec.out" || fail "dsim exec: the disk file"
[ "$(cat "$TMP/used")" -lt 8192 ] || fail "the tmpfs filled: $(cat "$TMP/used") KiB used"
note "output files refuse fallocate; seed 1 hash $h"
