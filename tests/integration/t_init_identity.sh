#!/bin/bash
# A machine's pid 1 is dsim's init, which execs a program of its own with a
# fixed command line (/sbin/init) and the name "init", in a fixed state
# (signals, limits, umask): /proc/1/cmdline, comm, status and limits are the
# same whoever starts dsim, with whatever environment, signals and limits,
# and under `dsim run`, `dsim replay`, `dsim replay --output` and `dsim
# verify` alike (they used to be dsim's own command line and the caller's
# environment). It is root in the machine's user namespace, as the command
# is, so what needs ptrace access to it (environ, exe, maps) is open to the
# machine's root, as on any machine, and holds nothing of dsim's or the
# caller's: no environment, its image in a memfd, no other mapping of a file.
. "$(dirname "$0")/lib.sh"
prog=$(build init_identity)

# Natively: every key is printed (the host's init, whatever it shows).
"$prog" >"$TMP/native.out" || fail "init_identity failed natively"
for k in cmdline environ comm exe; do
    [ "$(grep -c "^$k " "$TMP/native.out")" = 1 ] || fail "native output lacks $k"
done
grep -q '^status Name:' "$TMP/native.out" && grep -q '^limits Max open files' "$TMP/native.out" ||
    fail "native output lacks status or limits lines"

h1=$(same_hash_twice 1 "$prog") || exit 1
cp "$TMP/a.out" "$TMP/s1.out"
cat >"$TMP/want" <<'OUT'
cmdline 11 /sbin/init|
environ 0 
comm 4 init
exe /memfd:init (deleted)
status Name:	init
status Umask:	0022
status SigBlk:	0000000000000000
status SigIgn:	0000000000000000
status SigCgt:	0000000000000000
OUT
head -n 9 "$TMP/s1.out" | diff "$TMP/want" - >&2 || fail "pid 1 is not the machine's init"
grep -Eq '^limits Max open files +1024 +4096 ' "$TMP/s1.out" || fail "pid 1 has the caller's fd limit"
grep -qx 'maps 00010000-00011000 r-xp /memfd:init (deleted)' "$TMP/s1.out" || fail "pid 1 does not map its image"
! grep '^maps ' "$TMP/s1.out" | grep -v -e ' /memfd:init (deleted)$' -e ' \[[a-z_]*\]$' >&2 ||
    fail "pid 1 maps a file besides its image"

# Whoever starts dsim: another environment, SIGINT and SIGQUIT ignored (a
# shell's background job), lower limits, another umask and nice value.
(trap '' INT QUIT; ulimit -S -n 900; ulimit -S -q 1000; umask 077; renice -n 2 $$ >/dev/null
 env -i PATH=/usr/bin:/bin DSIM_TEST_NOISE=1 HOME=/nowhere "$DSIM" exec --seed 1 -- "$prog" \
    >"$TMP/caller.out" 2>"$TMP/exec.err") || { cat "$TMP/exec.err" >&2; fail "dsim exec from another caller failed"; }
diff "$TMP/s1.out" "$TMP/caller.out" >&2 || fail "the caller's state reached pid 1"
[ "$(exec_hash)" = "$h1" ] || fail "another caller gave another hash: $(exec_hash) vs $h1"

# One hash under run, replay, replay --output and verify, and from a
# caller with another environment.
cp "$prog" "$TMP/init_identity"
write_conf "$TMP/c.conf" <<EOF2
[machine main]
command = ./init_identity
EOF2
h=$(same_hash_everywhere "$TMP/c.conf" 3) || exit 1
head -n 9 "$TMP/everywhere.out/seed-3/main.stdout" | diff "$TMP/want" - >&2 ||
    fail "replay --output: pid 1 is not the machine's init"
h_env=$(env -i PATH=/usr/bin:/bin OTHER=x "$DSIM" replay "$TMP/c.conf" 3 | sed -n 's/^trace hash //p')
[ "$h_env" = "$h" ] || fail "another caller's environment changed the hash: $h_env vs $h"
note "pid 1: /sbin/init, no environment, named init; hash $h under run, replay, replay --output, verify"
