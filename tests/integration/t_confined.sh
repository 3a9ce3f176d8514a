#!/bin/bash
# Paths dsim works on for a machine stay inside the machine. A program
# makes symlinks to a host directory on its own disk, removes, renames,
# creates and overwrites through them (relative and absolute paths), puts
# symlinks where the names it removed were, and is crashed before any of it
# is durable. The crash undoes its operations on its own disk; the host
# directory (a scratch copy made here: harmless if dsim were wrong) is
# byte for byte what it was, on every seed, and each seed replays to one
# hash.
. "$(dirname "$0")/lib.sh"
prog=$(build symlink_escape)
host="$TMP/host"
mkdir -p "$host/victim/sub"
for f in victim/a victim/b victim/c file x; do echo "host $f" >"$host/$f"; done
snapshot() { (cd "$host" && find . -printf '%p %y %s %m\n' | sort && find . -type f -exec cat {} +) | md5sum; }
before=$(snapshot)

write_conf "$TMP/esc.conf" <<CONF
[simulation]
duration = 5s
[machine m]
command = exec $prog $host
command-after-restart = ls -la /var/tmp/esc
[fault power]
kind = crash
at = 1s
machine = m
duration = 100ms
CONF
# Natively the program would change the host directory: not run here.
for seed in 1 2 3 4 5 6; do
    timeout -k 5 60 "$DSIM" replay "$TMP/esc.conf" $seed --trace "$TMP/t$seed.gz" --output "$TMP/out" >"$TMP/r$seed.out" 2>&1
    [ "$(snapshot)" = "$before" ] || { (cd "$host" && find . -ls) >&2; fail "seed $seed changed the host directory"; }
    grep -q '^symlink link ok$' "$TMP/out/seed-$seed/m.stdout" ||
        { cat "$TMP/r$seed.out" "$TMP/out/seed-$seed/m.stdout" >&2; fail "seed $seed: the program did not run"; }
    grep -q '^unlink link/victim/a ok$' "$TMP/out/seed-$seed/m.stdout" || fail "seed $seed: unlinks through the link failed"
    grep -q 'passed' "$TMP/r$seed.out" || { cat "$TMP/r$seed.out" >&2; fail "seed $seed did not pass"; }
done
# The crash did undo operations (otherwise this proves little).
"$DSIM" trace "$TMP/t1.gz" --syscall disk: >"$TMP/disk1.txt"
grep -q 'undone' "$TMP/disk1.txt" || { cat "$TMP/disk1.txt" >&2; fail "seed 1: no operation was undone"; }
one_hash "$TMP/esc.conf" 1 >/dev/null || exit 1
note "6 seeds crashed after changes through symlinks to the host; host directory unchanged"
