#!/bin/bash
# A machine's /tmp and /var/tmp are its own, as on a fresh machine
# (tmp_view): their listings show what it made there (and the way to its
# working directory), their times and link counts are fixed, and the
# parents of dsim's run directories ($TMPDIR/dsim-runs, /tmp/dsim-runs,
# /var/tmp/dsim-runs) look empty. So other dsim runs and tests, and
# whatever else the host keeps in /tmp, change nothing a machine sees:
# the same output and hash with TMPDIR unset, /tmp or elsewhere, while
# another dsim runs and new entries appear in /tmp. Host files stay
# reachable by name.
. "$(dirname "$0")/lib.sh"
prog=$(build tmp_view)
"$prog" /tmp >"$TMP/native.out" || fail "tmp_view failed natively"
grep -q '^tmp \./4 \.\./4 ' "$TMP/native.out" || fail "native listing of /tmp is odd"
view() {    # view NAME [ENV...]: tmp_view under dsim from /, with $RUNS_PARENT if set
    local name=$1; shift
    (cd / && env "$@" "$DSIM" exec --seed 1 -- "$prog" ${RUNS_PARENT:+"$RUNS_PARENT"} >"$TMP/$name.out" \
        2>"$TMP/$name.err") || { cat "$TMP/$name.err" >&2; fail "$name: dsim exec failed"; }
    sed -n 's/^dsim: trace hash //p' "$TMP/$name.err" >"$TMP/$name.hash"
}
mkdir -p "$TMP/dsim-runs"
RUNS_PARENT="$TMP/dsim-runs" view own TMPDIR="$TMP"
grep -qx 'entries 0' "$TMP/own.out" || fail "a machine sees run directories"
view base TMPDIR="$TMP"
cat >"$TMP/want.head" <<'OUT'
tmp ./4 ../4
tmp_stat 41777 1 1735689500 1735689500 1735689500
var_tmp ./4 ../4
var_tmp_stat 41777 1 1735689500 1735689500 1735689500
tmp_after ./4 ../4 tmp_view.2/8
OUT
head -n 5 "$TMP/base.out" | diff "$TMP/want.head" - >&2 || fail "a machine sees the host's /tmp or /var/tmp"
grep -qx 'var_tmp_after ./4 ../4 tmp_view.2/8' "$TMP/base.out" || fail "its own file in /var/tmp is not listed"

# The host's /tmp changes, and another dsim runs (its run directories in a
# TMPDIR of its own under /tmp): the machine sees none of it.
junk=$(mktemp -d /tmp/dsim-tmpview-junk.XXXXXX)
trap 'rm -rf "$TMP" "$junk"' EXIT
mkdir -p "$TMP/other"
TMPDIR="$TMP/other" "$DSIM" exec --seed 2 -- /bin/sh -c 'seq 1 2000000 | wc -l' >/dev/null 2>&1 &
other=$!
sleep 0.5
view busy TMPDIR="$TMP"
wait "$other"
cmp -s "$TMP/base.out" "$TMP/busy.out" || { diff "$TMP/base.out" "$TMP/busy.out" >&2; fail "host changes in /tmp reached the machine"; }
cmp -s "$TMP/base.hash" "$TMP/busy.hash" || fail "host changes in /tmp changed the hash"

# TMPDIR elsewhere, /tmp, or unset: one output, one hash.
elsewhere=$(mktemp -d /var/tmp/dsim-tmpview.XXXXXX)
trap 'rm -rf "$TMP" "$junk" "$elsewhere"' EXIT
view elsewhere TMPDIR="$elsewhere"
RUNS_PARENT="$elsewhere/dsim-runs" view elsewhere_runs TMPDIR="$elsewhere"
grep -qx 'entries 0' "$TMP/elsewhere_runs.out" || fail "TMPDIR elsewhere: a machine sees run directories"
had_runs=no
[ -d /tmp/dsim-runs ] && had_runs=yes
view slash_tmp TMPDIR=/tmp
view unset -u TMPDIR
RUNS_PARENT=/tmp/dsim-runs view unset_runs -u TMPDIR
grep -qx 'entries 0' "$TMP/unset_runs.out" || fail "TMPDIR unset: a machine sees run directories"
[ "$had_runs" = yes ] || rmdir /tmp/dsim-runs 2>/dev/null
for case in elsewhere slash_tmp unset; do
    cmp -s "$TMP/base.out" "$TMP/$case.out" || { diff "$TMP/base.out" "$TMP/$case.out" >&2; fail "TMPDIR $case: another view"; }
    cmp -s "$TMP/base.hash" "$TMP/$case.hash" || fail "TMPDIR $case: another hash"
done

# Host files in /tmp stay reachable by name.
echo reachable >"$junk/file"
dsim_exec 1 cat "$junk/file" >"$TMP/cat.out" 2>/dev/null
grep -qx reachable "$TMP/cat.out" || fail "a host file in /tmp is not reachable by name"
note "/tmp and /var/tmp the machine's own, whatever TMPDIR and the host hold; hash $(cat "$TMP/base.hash")"
