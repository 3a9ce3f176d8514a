#!/bin/bash
# [defaults]: keys every machine takes unless it sets its own. The defaults'
# env reaches every machine (three here, one of them a CPython machine that
# then writes no __pycache__), a machine's own env wins variable by variable,
# the default disk size applies where a machine sets none; one seed gives one
# hash; a key that cannot be a default is refused with file:line, exit 2.
. "$(dirname "$0")/lib.sh"
D=$TMP/conf
mkdir -p "$D"
printf 'import sys\nprint("bytecode", "off" if sys.dont_write_bytecode else "on")\n' >"$D/mod.py"
write_conf "$D/defaults.conf" <<'CONF'
[simulation]
duration = 10s
[defaults]
env = GREETING=hello
env = PYTHONDONTWRITEBYTECODE=1
disk = 32M
[machine a]
command = echo "$HOSTNAME $GREETING $PYTHONDONTWRITEBYTECODE"; df -B1M --output=size / | tail -n 1
[machine b]
env = GREETING=bye
command = echo "$HOSTNAME $GREETING $PYTHONDONTWRITEBYTECODE"; df -B1M --output=size / | tail -n 1
[machine py]
disk = 64M
command = cp mod.py /var/tmp/ && cd /var/tmp && python3 -c 'import mod' && ls /var/tmp; df -B1M --output=size / | tail -n 1
CONF
timeout -k 5 120 "$DSIM" replay "$D/defaults.conf" 1 --output "$TMP/out" >"$TMP/replay.out" 2>&1 ||
    { cat "$TMP/replay.out" >&2; fail "seed 1 failed"; }
o=$TMP/out/seed-1
expect() {  # expect MACHINE TEXT: the machine's stdout is exactly TEXT
    [ "$(tr -s ' ' <"$o/$1.stdout" | sed 's/^ //; s/ $//')" = "$2" ] ||
        { cat "$o/$1.stdout" "$o/$1.stderr" >&2; fail "$1: expected: $2"; }
}
expect a $'a hello 1\n32'
expect b $'b bye 1\n32'
expect py $'bytecode off\nmod.py\n64'
h=$(one_hash "$D/defaults.conf" 1) || exit 1

# Without [defaults] the same machines see none of it (the default disk is 1 GiB).
sed '/^\[defaults\]/,/^disk/d' "$D/defaults.conf" >"$D/none.conf"
timeout -k 5 120 "$DSIM" replay "$D/none.conf" 1 --output "$TMP/none" >"$TMP/none.out" 2>&1 ||
    { cat "$TMP/none.out" >&2; fail "seed 1 without [defaults] failed"; }
o=$TMP/none/seed-1
expect a $'a\n1024'
expect b $'b bye\n1024'
grep -q '^__pycache__$' "$o/py.stdout" || { cat "$o/py.stdout" >&2; fail "py: without the default env CPython wrote no __pycache__"; }

# A [machine] key that cannot be a default: file:line, exit 2.
printf '[defaults]\nenv = A=1\ncommand = true\n[machine a]\ncommand = true\n' >"$D/bad.conf"
"$DSIM" run "$D/bad.conf" --seeds 1 >/dev/null 2>"$TMP/bad.err"
[ $? = 2 ] && grep -q "^$D/bad.conf:3: key \"command\" cannot be in \[defaults\]" "$TMP/bad.err" ||
    fail "a command in [defaults]: $(cat "$TMP/bad.err")"
note "default env and disk reach every machine, a machine's own win; seed 1 replays to $h"
