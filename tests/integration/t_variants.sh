#!/bin/bash
# Variants of one config with -D NAME=VALUE: a bug matrix (buggy / fixed x
# with / without a crash) from one file. Each variant's results, JUnit
# report and replay lines carry its values; an undefined ${NAME} is a
# file:line error with exit 2; $${ is a literal ${ for the shell; a -D the
# file never uses is warned about; one variant replays to one hash.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/conf" && cd "$TMP/conf" || exit 1
write_conf m.conf <<'CONF'
[simulation]
duration = 30s
[machine app]
# buggy: trusts what it finds after a crash; fixed: starts over.
command = if [ -e /var/tmp/state ] && [ ${BUG} = buggy ]; then echo "stale state"; exit 1; fi; touch /var/tmp/state; sync; x=home; echo "$${x}"; sleep 10
[fault crash]
kind = restart
at = ${CRASH_AT:-40s}
machine = app
duration = 500ms
CONF
v=0
for bug in buggy fixed; do
    for crash in none 4s; do
        v=$((v + 1))
        d=(-D BUG=$bug)
        [ $crash = none ] || d+=(--set CRASH_AT=$crash)
        timeout -k 5 120 "$DSIM" run m.conf --seeds 1-2 -j 1 "${d[@]}" --results "$TMP/v$v.jsonl" --junit "$TMP/v$v.xml" \
            >"$TMP/v$v.out" 2>"$TMP/v$v.err"
        rc=$?
        want=0
        [ $bug = buggy ] && [ $crash != none ] && want=1
        [ $rc = $want ] || { cat "$TMP/v$v.out" "$TMP/v$v.err"; fail "BUG=$bug CRASH_AT=$crash: exit $rc, want $want"; }
        defines="{\"BUG\":\"$bug\"}"
        [ $crash = none ] || defines="{\"BUG\":\"$bug\",\"CRASH_AT\":\"$crash\"}"
        grep -qF "\"defines\":$defines" "$TMP/v$v.jsonl" || { cat "$TMP/v$v.jsonl"; fail "results lack $defines"; }
        grep -qF "<property name=\"BUG\" value=\"$bug\"/>" "$TMP/v$v.xml" || { cat "$TMP/v$v.xml"; fail "JUnit lacks BUG"; }
        [ -s "$TMP/v$v.err" ] && { cat "$TMP/v$v.err"; fail "BUG=$bug CRASH_AT=$crash: dsim said something on stderr"; }
    done
done
grep -q '^  replay: dsim replay m.conf 1 -D BUG=buggy -D CRASH_AT=4s$' "$TMP/v2.out" || { cat "$TMP/v2.out"; fail "replay line"; }
grep -q '^    stale state$' "$TMP/v2.out" || { cat "$TMP/v2.out"; fail "the report does not show the machine's stdout"; }
# The escape: the machine's shell saw ${x}, not dsim.
grep -q '^    home$' "$TMP/v2.out" || { cat "$TMP/v2.out"; fail "\$\${x} did not reach the shell as \${x}"; }
h1=$(timeout -k 5 60 "$DSIM" verify m.conf --seed 1 -D BUG=fixed | tail -n 1)
h2=$(timeout -k 5 60 "$DSIM" verify m.conf --seed 1 -D BUG=buggy -D CRASH_AT=4s | tail -n 1)
h3=$(timeout -k 5 60 "$DSIM" verify m.conf --seed 1 -D BUG=buggy -D CRASH_AT=4s | tail -n 1)
[ "$h2" = "$h3" ] || fail "a variant does not replay with one hash"
[ "$h1" != "$h2" ] || fail "two variants gave one hash"
# Undefined: file:line, exit 2.
timeout -k 5 60 "$DSIM" run m.conf --seeds 1 >/dev/null 2>"$TMP/undef.err"; rc=$?
[ $rc = 2 ] && grep -q '^m.conf:5: \${BUG} is not defined' "$TMP/undef.err" || { cat "$TMP/undef.err"; fail "undefined \${BUG}: exit $rc"; }
# A bad -D is a usage error; an unused one is warned about.
timeout -k 5 60 "$DSIM" run m.conf --seeds 1 -D 1BUG=x >/dev/null 2>"$TMP/bad.err"
[ $? = 2 ] && grep -q 'bad -D 1BUG=x' "$TMP/bad.err" || { cat "$TMP/bad.err"; fail "bad -D accepted"; }
timeout -k 5 60 "$DSIM" run m.conf --seeds 1 -D BUG=fixed -D BUGG=x >/dev/null 2>"$TMP/unused.err"
grep -q 'warning: -D BUGG: m.conf has no \${BUGG}' "$TMP/unused.err" || { cat "$TMP/unused.err"; fail "no warning for an unused -D"; }
# A sweep's own output in the config's directory (every machine's working
# directory) is warned about; elsewhere it is not.
timeout -k 5 60 "$DSIM" run m.conf --seeds 1 -D BUG=fixed --results here.jsonl >/dev/null 2>"$TMP/here.err"
grep -q 'warning: --results here.jsonl is in .*, which every machine sees as its working directory' "$TMP/here.err" ||
    { cat "$TMP/here.err"; fail "no warning for --results in the config's directory"; }
mkdir -p sub
timeout -k 5 60 "$DSIM" run m.conf --seeds 1 -D BUG=fixed --output sub/out >/dev/null 2>"$TMP/sub.err"
grep -q 'warning: --output sub/out is in .*(/dsim/config/sub)' "$TMP/sub.err" || { cat "$TMP/sub.err"; fail "no warning for --output below it"; }
note "4 variants of one file; seed 1 buggy+crash $h2, fixed $h1"
