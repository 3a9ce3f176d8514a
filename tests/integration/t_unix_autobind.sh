#!/bin/bash
# A unix socket's autobound name (bind with its family alone; a send or
# connect while unbound with SO_PASSCRED) is Linux's form, "\0" and five
# hex digits, but drawn from the machine's entropy: the kernel draws it at
# random (a global counter before 5.19), so the names a program printed or
# sent were another in every run. unix_autobind: what Linux promises, as
# natively on seeds 1-3; its names the same in two runs of seed 1 and
# other names for seed 2.
. "$(dirname "$0")/lib.sh"
dsim_timeout 60
prog=$(build unix_autobind)
native_ok "$prog"
h=$(dsim_as_native --seeds "2 3" "$prog") || exit 1
same_hash_twice 1 "$prog" names >/dev/null || exit 1
grep '^  name @' "$TMP/a.out" >"$TMP/names1"
[ "$(sort -u "$TMP/names1" | grep -c '^  name @[0-9a-f]\{5\}$')" = 5 ] ||
    { cat "$TMP/a.out" >&2; fail "not five distinct names of five hex digits"; }
dsim_exec 2 "$prog" names >"$TMP/two.out" || { cat "$TMP/exec.err" >&2; fail "seed 2 failed"; }
grep '^  name @' "$TMP/two.out" | cmp -s - "$TMP/names1" && fail "seeds 1 and 2 autobind the same names"
note "hash $h; seed 1's names $(sed 's/^  name //' "$TMP/names1" | tr '\n' ' ')the same in two runs; seed 2's others"
