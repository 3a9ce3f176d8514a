#!/bin/bash
# entropy.c under dsim: every source of randomness is pinned to the seed, the
# address space is not randomized, and the machine's identity is fixed.
. "$(dirname "$0")/lib.sh"

dsim_timeout

prog=$(build entropy)
RANDOM_KEYS='getrandom0 getrandom_nonblock urandom random at_random'

val() { sed -n "s/^$1 //p" "$2"; }

# Natively: runs, and prints every key once.
"$prog" >"$TMP/native.out" || fail "entropy failed natively"
for k in $RANDOM_KEYS addr_stack addr_heap addr_libc addr_main uname_sysname \
         uname_nodename uname_release uname_version uname_machine hostname \
         nprocs phys_mem affinity_cpus pid tid; do
    [ "$(grep -c "^$k " "$TMP/native.out")" = 1 ] || fail "native output lacks $k"
done

# One seed twice: same output, same hash.
h1=$(same_hash_twice 1 "$prog") || exit 1
cp "$TMP/a.out" "$TMP/s1.out"
note "seed 1 hash $h1"

# Another seed.
dsim_exec 2 "$prog" >"$TMP/s2.out" || { cat "$TMP/exec.err" >&2; fail "seed 2: exit $?"; }
h2=$(exec_hash)
[ -n "$h2" ] || fail "seed 2: no trace hash"
[ "$h1" != "$h2" ] || fail "seeds 1 and 2 have the same trace hash $h1"

for k in $RANDOM_KEYS; do
    v1=$(val "$k" "$TMP/s1.out"); v2=$(val "$k" "$TMP/s2.out")
    [ -n "$v1" ] && [ -n "$v2" ] || fail "$k missing under dsim"
    [ "$v1" != "$v2" ] || fail "$k is the same on seeds 1 and 2: $v1"
    # Not a constant either: every source draws fresh bytes.
    [ "$v1" != 00000000000000000000000000000000 ] || fail "$k is all zeros"
done
# Within one run, the five sources give five different values.
n=$(for k in $RANDOM_KEYS; do val "$k" "$TMP/s1.out"; done | sort -u | wc -l)
[ "$n" = 5 ] || fail "random sources repeat within one run ($n distinct of 5)"

# Everything else (addresses, uname, cpus, memory, pids) is identical on both
# seeds: no ASLR, and the machine's identity does not depend on the seed.
pat="^($(echo $RANDOM_KEYS | tr ' ' '|')) "
grep -Ev "$pat" "$TMP/s1.out" >"$TMP/s1.fixed"
grep -Ev "$pat" "$TMP/s2.out" >"$TMP/s2.fixed"
[ "$(wc -l <"$TMP/s1.fixed")" -ge 15 ] || fail "too few fixed lines under dsim"
diff "$TMP/s1.fixed" "$TMP/s2.fixed" >&2 || fail "non-random lines differ between seeds"
for k in addr_stack addr_heap addr_libc addr_main; do
    v=$(val "$k" "$TMP/s1.out")
    [ -n "$v" ] && [ "$v" != "(nil)" ] || fail "$k missing under dsim"
done

# The machine's identity.
expect() {
    local got; got=$(val "$1" "$TMP/s1.out")
    [ "$got" = "$2" ] || fail "$1: expected '$2', got '$got'"
}
expect hostname main
expect uname_nodename main
expect uname_sysname Linux
expect uname_machine x86_64
expect nprocs 2
expect affinity_cpus 2
expect phys_mem 4294967296
expect pid 2
expect tid 2
note "ok"
