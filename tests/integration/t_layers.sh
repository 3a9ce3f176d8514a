#!/bin/bash
# The folders are the layers (docs/design.md "The layers of the code"): a
# file includes, and uses the functions and data of, its own folder and the
# folders below it, never above, and folders of one floor never each
# other's. Bottom up:
#   0 base/                       pure logic: config, values, PRNG, plans, results, models
#   1 trace/ code/ net/model/     trace events and hash, x86 code scanning, the network model
#   2 world/                      the simulated state and the tracer's primitives
#   3 disk/ net/sim/              the disk and network simulators
#   4 syscalls/                   the handlers and the dispatch table
#   5 supervisor/                 machines, the step, the run loop, faults, reports, sweeps
#   6 cli/                        the commands
# Uses are read from the build's objects (nm): a header may declare what a
# higher floor defines, which the includes alone would not show.
. "$(dirname "$0")/lib.sh"
LAYERS="base trace code net world disk syscalls supervisor cli"
# Includes: "I HEADER FILE" for every #include "..." of the tree's sources.
(cd "$SRCDIR" && grep -H '^#include "' $(find $LAYERS -name '*.[chS]' | sort)) |
    sed -n 's/^\([^:]*\):#include "\([^"]*\)".*/I \2 \1/p' >"$TMP/edges"
# Uses: "D SYMBOL FILE" for what each object defines, "U SYMBOL FILE" for
# what it uses (BUILDDIR/DIR/dsim-NAME.o and libdsimcore_a-NAME.o come from
# DIR/NAME.c).
objs=$(cd "$BUILDDIR" && find $LAYERS -name '*.o' | sort)
[ -n "$objs" ] || fail "no objects in $BUILDDIR: build first"
for o in $objs; do
    n=$(basename "$o" .o)
    [ -f "$SRCDIR/$(dirname "$o")/${n#*-}.c" ] || [ -f "$SRCDIR/$(dirname "$o")/${n#*-}.S" ] || continue   # a stale object of a moved file
    (cd "$BUILDDIR" && nm -g "$o") | awk -v s="$(dirname "$o")/${n#*-}.c" '
        NF == 3 && $2 ~ /^[TDBRC]$/ { print "D", $3, s }
        NF == 2 && $1 == "U" { print "U", $2, s }'
done >>"$TMP/edges"
awk '
    function floor(p) {
        if (p ~ /^base\//) return 0
        if (p ~ /^(trace|code|net\/model)\//) return 1
        if (p ~ /^world\//) return 2
        if (p ~ /^(disk|net\/sim)\//) return 3
        if (p ~ /^syscalls\//) return 4
        if (p ~ /^supervisor\//) return 5
        if (p ~ /^cli\//) return 6
        return 99
    }
    function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
    function check(what, from, to, name) {
        if (dir(from) == dir(to)) return
        if (floor(to) < floor(from)) return
        printf "%s (floor %d) %s %s (floor %d)\n", from, floor(from), what, name, floor(to) > "/dev/stderr"
        bad++
    }
    $1 == "I" { includes++; check("includes", $3, $2, $2) }
    $1 == "D" && !($2 in def) { def[$2] = $3 }
    $1 == "U" { n++; sym[n] = $2; user[n] = $3 }
    END {
        for (i = 1; i <= n; i++)
            if (sym[i] in def) { uses++; check("uses", user[i], def[sym[i]], sym[i] " of " def[sym[i]]) }
        print includes + 0, uses + 0, bad + 0
    }' "$TMP/edges" >"$TMP/counts"
read -r includes uses bad <"$TMP/counts"
[ "$includes" -gt 100 ] && [ "$uses" -gt 300 ] || fail "only $includes includes and $uses uses found"
[ "$bad" = 0 ] || fail "$bad includes or uses point up or across"
note "$includes includes and $uses uses across objects, every one down"
