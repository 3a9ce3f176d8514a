#!/bin/bash
# The vDSO's rewrite is one write to /proc/TID/mem; where that fails dsim
# pokes the changed words through ptrace (DSIM_CODE_WRITE=poke forces it).
# Both give a program reading clocks through the vDSO the same trace, with
# either clock_reads mode: a fallback that wrote nothing would leave the
# host's clock reads (no stops with stop, the host's time with page).
. "$(dirname "$0")/lib.sh"
dsim_timeout
prog=$(build clock_page)

for mode in page stop; do
    EXEC_OPTS="--clock-reads $mode"
    dsim_exec 1 "$prog" >"$TMP/write.out" || fail "$mode: the run failed"
    h_write=$(exec_hash)
    export DSIM_CODE_WRITE=poke
    h_poke=$(same_hash_twice 1 "$prog") || exit 1
    unset DSIM_CODE_WRITE
    note "clock_reads = $mode: $h_write written at once, $h_poke poked"
    [ -n "$h_write" ] || fail "$mode: no trace hash"
    [ "$h_write" = "$h_poke" ] || fail "$mode: the poked vDSO gives another trace: $h_poke vs $h_write"
    cmp -s "$TMP/write.out" "$TMP/a.out" || fail "$mode: the poked vDSO gives other output"
done
