#!/bin/bash
# Run directories. (1) A TMPDIR given through a symlink, or as a relative
# path, works (it used to fail every seed: "cannot start machine") and gives
# the hash the real directory gives. (2) A dsim killed with SIGKILL leaves
# its run directory behind (only its lock: the contents were a tmpfs in its
# own mount namespace); the next dsim that finds it removes it: only a
# dsim-run.XXXXXX directory of this user whose `lock` file no process holds.
# A directory without a lock (an older dsim's), one whose lock a live
# process holds, one under another name, one of another user and a symlink
# to an unlocked one all stay, and so does what the symlink points to.
. "$(dirname "$0")/lib.sh"
[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"
command -v flock >/dev/null || fail "needs flock(1)"
run() { timeout -k 5 60 "$DSIM" "$@"; }

# (1) TMPDIR through a symlink, and relative.
mkdir -p "$TMP/real" "$TMP/cwd/rel"
ln -s "$TMP/real" "$TMP/link"
TMPDIR="$TMP/real" run exec --seed 3 -- /bin/echo hello >"$TMP/real.out" 2>"$TMP/real.err" || fail "plain TMPDIR failed"
h=$(sed -n 's/^dsim: trace hash //p' "$TMP/real.err")
TMPDIR="$TMP/link" run exec --seed 3 -- /bin/echo hello >"$TMP/link.out" 2>"$TMP/link.err" ||
    { cat "$TMP/link.err" >&2; fail "TMPDIR through a symlink failed"; }
[ "$(sed -n 's/^dsim: trace hash //p' "$TMP/link.err")" = "$h" ] || fail "symlinked TMPDIR: another hash"
(cd "$TMP/cwd" && TMPDIR=rel run exec --seed 3 -- /bin/echo hello >"$TMP/rel.out" 2>"$TMP/rel.err") ||
    { cat "$TMP/rel.err" >&2; fail "relative TMPDIR failed"; }
[ "$(sed -n 's/^dsim: trace hash //p' "$TMP/rel.err")" = "$h" ] || fail "relative TMPDIR: another hash"
[ "$(cat "$TMP/link.out")" = hello ] && [ "$(cat "$TMP/rel.out")" = hello ] || fail "no output"
write_conf "$TMP/one.conf" <<'EOF'
[machine main]
command = echo hello
EOF
(cd "$TMP/cwd" && TMPDIR=rel run run "$TMP/one.conf" --seeds 1-3 -j 2 >/dev/null 2>&1) || fail "relative TMPDIR: dsim run failed"
TMPDIR="$TMP/link" run run "$TMP/one.conf" --seeds 1-3 -j 2 >/dev/null 2>&1 || fail "symlinked TMPDIR: dsim run failed"

# (2) A killed dsim's run directory.
export TMPDIR="$TMP/k"
mkdir -p "$TMPDIR"
runs="$TMPDIR/dsim-runs"
"$DSIM" exec --duration 1000s -- /bin/sh -c 'while :; do /bin/true; done' >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do
    ls "$runs"/dsim-run.*/lock >/dev/null 2>&1 && break
    sleep 0.05
done
killed=$(ls -d "$runs"/dsim-run.* 2>/dev/null)
[ -n "$killed" ] && [ -f "$killed/lock" ] || { kill -9 $pid; fail "no locked run directory while dsim runs"; }
flock -n "$killed/lock" true && { kill -9 $pid; fail "a live dsim's run directory is not locked"; }
# Its fixed files' directory (one per process, made before the run's).
fixed=$(ls -d "$runs"/dsim-fixed.* 2>/dev/null)
[ -n "$fixed" ] && [ -f "$fixed/lock" ] || { kill -9 $pid; fail "no locked fixed files' directory while dsim runs"; }
flock -n "$fixed/lock" true && { kill -9 $pid; fail "a live dsim's fixed files' directory is not locked"; }
kill -9 $pid
wait $pid 2>/dev/null
for _ in $(seq 1 100); do flock -n "$killed/lock" true && flock -n "$fixed/lock" true && break; sleep 0.05; done
# Its contents were on a tmpfs in its own mount namespace, gone with it:
# on the host only the lock is left, for the next dsim to find.
[ "$(ls -A "$killed" 2>/dev/null)" = lock ] || fail "the killed dsim left more than its lock: $(ls -A "$killed")"
[ "$(ls -A "$fixed" 2>/dev/null)" = lock ] || fail "the killed dsim left more than its fixed files' lock: $(ls -A "$fixed")"

# What must stay.
mkdir -p "$runs/dsim-run.oldkin/disk"            # no lock: an older dsim's, maybe running
touch "$runs/dsim-run.oldkin/disk/f"
mkdir -p "$runs/dsim-run.livexx"                 # locked by a live process
touch "$runs/dsim-run.livexx/lock"
(exec 9<"$runs/dsim-run.livexx/lock"; flock 9; exec sleep 60) &
holder=$!
mkdir -p "$runs/other" && touch "$runs/other/lock"                  # not a run directory's name
mkdir -p "$runs/dsim-run.nobody" && touch "$runs/dsim-run.nobody/lock"
chown 65534 "$runs/dsim-run.nobody"                                 # another user's
mkdir -p "$TMP/target/sub" && touch "$TMP/target/lock" "$TMP/target/sub/keep"
ln -s "$TMP/target" "$runs/dsim-run.symlnk"                         # a symlink to an unlocked "run"
sleep 0.2

run exec -- /bin/true >/dev/null 2>&1 || { kill $holder; fail "the next dsim failed"; }
[ ! -e "$killed" ] || { kill $holder; fail "the killed dsim's run directory was not removed: $killed"; }
[ ! -e "$fixed" ] || { kill $holder; fail "the killed dsim's fixed files were not removed: $fixed"; }
for keep in dsim-run.oldkin/disk/f dsim-run.livexx/lock other/lock dsim-run.nobody/lock dsim-run.symlnk; do
    [ -e "$runs/$keep" ] || [ -L "$runs/$keep" ] || { kill $holder; fail "removed what was not its own: $keep"; }
done
[ -e "$TMP/target/sub/keep" ] || { kill $holder; fail "followed a symlink out of the runs directory"; }
kill $holder 2>/dev/null
wait $holder 2>/dev/null
# Nothing of the next dsim's own is left, nor of dsim run's workers.
left=$(ls -d "$runs"/dsim-run.* "$runs"/dsim-fixed.* 2>/dev/null | grep -v -e oldkin -e livexx -e nobody -e symlnk)
[ -z "$left" ] || fail "left behind: $left"
note "symlinked and relative TMPDIR give hash $h; a killed dsim's run directory is removed, nothing else"
