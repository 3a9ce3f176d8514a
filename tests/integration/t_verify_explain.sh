#!/bin/bash
# `dsim verify` explains differing hashes. host_counter reads a number from a
# scratch file on the host and makes that many (mod 8, plus one) getppid()
# calls; the [check] bumps the file after every run, so no two runs of a
# seed take the same course. verify must say NOT deterministic and name:
# the first differing event of two runs (both lines, same event number,
# different calls), each run's stack there (follow_counter's getppid in one,
# the code after it in the other), and the scratch file as read from outside
# and changed between them. Twice. Then the controls: with the file left
# alone, verify gives one hash (twice), a replay's trace notes the file as
# an outside read and has that same hash; a machine that prints a /proc
# counter: the explanation names the output that differs and /proc/vmstat;
# one that prints a host file's mtime (touched by the [check]): its stat.
. "$(dirname "$0")/lib.sh"
prog=$(build host_counter) || exit 1
scratch=$(mktemp -d "$TMP/scratch.XXXXXX")
echo 0 >"$scratch/count"

write_conf "$TMP/bump.conf" <<CONF
[machine main]
command = '$prog' '$scratch/count'

[check]
command = n=\$(cat '$scratch/count'); echo \$((n + 1)) >'$scratch/count'
CONF

for round in 1 2; do
    out=$TMP/explain$round.out
    timeout -k 5 120 "$DSIM" verify "$TMP/bump.conf" --seed 3 >"$out" 2>"$TMP/explain$round.err"; rc=$?
    [ "$rc" = 1 ] || { cat "$out" "$TMP/explain$round.err" >&2; fail "round $round: verify exit $rc, expected 1"; }
    grep -qx 'dsim: seed 3 is NOT deterministic: the hashes differ' "$out" || { cat "$out" >&2; fail "round $round: no 'NOT deterministic'"; }
    # Where two runs parted: their numbers, the event, both lines.
    where=$(grep -E '^where runs [0-9]+ and [0-9]+ parted: at their event [0-9]+ \(the [0-9]+ before it are the same\)$' "$out")
    [ -n "$where" ] || { cat "$out" >&2; fail "round $round: no 'where runs A and B parted'"; }
    read -r a b <<<"$(sed 's/^where runs \([0-9]*\) and \([0-9]*\) .*/\1 \2/' <<<"$where")"
    la=$(grep -E "^  run $a: [0-9]+\.[0-9]{9} main [0-9]+ " "$out" | head -n 1)
    lb=$(grep -E "^  run $b: [0-9]+\.[0-9]{9} main [0-9]+ " "$out" | head -n 1)
    [ -n "$la" ] && [ -n "$lb" ] || { cat "$out" >&2; fail "round $round: the parting event of run $a or $b is missing"; }
    ta=$(cut -d' ' -f5 <<<"$la") tb=$(cut -d' ' -f5 <<<"$lb")
    [ "$ta" = "$tb" ] || fail "round $round: the two runs' parting events are at other times ($ta, $tb)"
    ea=${la#*main } eb=${lb#*main }
    [ "$ea" != "$eb" ] || fail "round $round: the 'differing' events are the same: $ea"
    grep -q 'getppid()' <<<"$la$lb" || fail "round $round: neither parting event is the extra getppid(): $la / $lb"
    # Each run's stack at that event, in the program's own code.
    for r in $a $b; do
        sed -n "/^  stack of machine main thread [0-9]* in run $r:\$/,/^  [^ ]/p" "$out" >"$TMP/stack$r"
        grep -qE '^    #0 0x[0-9a-f]+ ' "$TMP/stack$r" || { cat "$out" >&2; fail "round $round: no stack of run $r"; }
        grep -qE 'main\+0x[0-9a-f]+ \(host_counter\)$' "$TMP/stack$r" ||
            { cat "$TMP/stack$r" >&2; fail "round $round: run $r's stack does not reach host_counter's main"; }
    done
    grep -q 'follow_counter+' "$TMP/stack$a" "$TMP/stack$b" ||
        { cat "$out" >&2; fail "round $round: no stack in follow_counter, where one run made its extra getppid()"; }
    # The host file, read before the parting point and changed between the runs.
    grep -q '^  read from outside the simulation before it, and not the same in both runs:$' "$out" ||
        { cat "$out" >&2; fail "round $round: no changed outside read"; }
    grep -qE "^    machine main thread [0-9]+ read $scratch/count\$" "$out" ||
        { cat "$out" >&2; fail "round $round: the scratch file is not named"; }
    da=$(grep -A2 "read $scratch/count\$" "$out" | sed -n "s/^      run $a: //p")
    db=$(grep -A2 "read $scratch/count\$" "$out" | sed -n "s/^      run $b: //p")
    [[ "$da" == "host file, "* && "$db" == "host file, "* && "$da" != "$db" ]] ||
        { cat "$out" >&2; fail "round $round: the file's two descriptions are not two different host files: $da / $db"; }
    note "round $round: runs $a and $b parted at '${ea}' / '${eb}'"
done

# Controls. The file left alone: one hash, twice; the replay's trace notes
# the read and has the same hash.
write_conf "$TMP/still.conf" <<CONF
[machine main]
command = '$prog' '$scratch/count'
CONF
for round in 1 2; do
    timeout -k 5 60 "$DSIM" verify "$TMP/still.conf" --seed 3 --runs 3 >"$TMP/still$round.out" 2>&1 ||
        { cat "$TMP/still$round.out" >&2; fail "verify of an unchanged file: exit $?"; }
    [ "$(grep -c '^run [1-3]: ' "$TMP/still$round.out")" = 3 ] && ! grep -q 'NOT deterministic\|parted' "$TMP/still$round.out" ||
        { cat "$TMP/still$round.out" >&2; fail "verify of an unchanged file: not one hash over 3 runs"; }
done
h=$(tail -n 1 "$TMP/still1.out")
[ "$h" = "$(tail -n 1 "$TMP/still2.out")" ] || fail "two verifies of an unchanged file gave two hashes"
timeout -k 5 60 "$DSIM" replay "$TMP/still.conf" 3 --trace "$TMP/still.trace" >"$TMP/replay.out" 2>&1 ||
    { cat "$TMP/replay.out" >&2; fail "replay of the unchanged file failed"; }
grep -qx "trace hash $h" "$TMP/replay.out" || { cat "$TMP/replay.out" >&2; fail "replay --trace: another hash than verify's $h"; }
untrace "$TMP/still.trace"
grep -qE "^  \| outside: main [0-9]+ \"$scratch/count\" host file, [0-9]+ bytes, mtime [0-9]+\.[0-9]{9}, ctime [0-9]+\.[0-9]{9}, inode [0-9]+, xxh3 [0-9a-f]{16}\$" \
    "$TMP/still.trace" || { grep outside "$TMP/still.trace" >&2; fail "the trace does not note the outside read of the scratch file"; }
! grep -q 'outside: .*"/etc/hosts"' "$TMP/still.trace" || fail "dsim's own /etc/hosts is noted as outside"

# Only the metadata of a host file: the machine prints its mtime (stat), the
# [check] touches it. The outputs differ, and the file's two stats are named.
touch "$scratch/stamp"
write_conf "$TMP/stamp.conf" <<CONF
[machine main]
command = stat -c %y '$scratch/stamp'

[check]
command = touch '$scratch/stamp'
CONF
timeout -k 5 60 "$DSIM" verify "$TMP/stamp.conf" --seed 1 >"$TMP/stamp.out" 2>&1; rc=$?
[ "$rc" = 1 ] || { cat "$TMP/stamp.out" >&2; fail "verify of a touched file's mtime: exit $rc"; }
grep -qE "^  machine main's stdout differs from byte [0-9]+ on; the line there:\$" "$TMP/stamp.out" &&
    grep -qE "^    machine main thread [0-9]+ read $scratch/stamp\$" "$TMP/stamp.out" &&
    [ "$(grep -A2 "read $scratch/stamp\$" "$TMP/stamp.out" | grep -cE '^      run [12]: host file, 0 bytes, mtime .* \(stat\)$')" = 2 ] ||
    { cat "$TMP/stamp.out" >&2; fail "verify of a touched file's mtime: the stat of the file is not named"; }

# A /proc counter in the output: the outputs differ, and /proc/vmstat is named.
write_conf "$TMP/vmstat.conf" <<CONF
[machine main]
command = grep ^pgfault /proc/vmstat
CONF
timeout -k 5 60 "$DSIM" verify "$TMP/vmstat.conf" --seed 3 >"$TMP/vm.out" 2>&1; rc=$?
[ "$rc" = 1 ] || { cat "$TMP/vm.out" >&2; fail "verify of a /proc counter: exit $rc"; }
grep -qE "^runs 1 and 2 made the same [0-9]+ events; the hashes differ in what the machines printed:\$" "$TMP/vm.out" &&
    grep -qE "^  machine main's stdout differs from byte [0-9]+ on; the line there:\$" "$TMP/vm.out" &&
    grep -qE '^    run 1: pgfault [0-9]+$' "$TMP/vm.out" && grep -qE '^    run 2: pgfault [0-9]+$' "$TMP/vm.out" &&
    grep -qx '    /proc/vmstat: a /proc file dsim does not virtualize' "$TMP/vm.out" ||
    { cat "$TMP/vm.out" >&2; fail "verify of a /proc counter: the explanation does not name the output and /proc/vmstat"; }
note "ok"
