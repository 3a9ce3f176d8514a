#!/bin/bash
# --output keeps every seed's machine outputs and the check's output, as
# dsim wrote them, for passing and failing seeds; a file already at the
# destination is replaced, and a symlink there is not followed (the kept
# file is a new regular file; what the link pointed at is untouched).
# Two runs of one seed keep the same files.
. "$(dirname "$0")/lib.sh"
write_conf "$TMP/c.conf" <<'CONF'
[machine a]
command = echo "a out $((DSIM_SEED + 0))"; echo "a err" >&2
[machine b]
command = printf 'b out\nline 2\n'
[check]
command = cat a.stdout b.stdout; test -s a.stdout
CONF
mkdir -p "$TMP/o/seed-2"
echo "victim" >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/o/seed-2/a.stdout"
echo "stale" >"$TMP/o/seed-2/b.stdout"
timeout -k 5 120 "$DSIM" run "$TMP/c.conf" --seeds 1-3 --output "$TMP/o" >"$TMP/run.out" 2>&1 ||
    { cat "$TMP/run.out"; fail "run failed"; }
for s in 1 2 3; do
    d="$TMP/o/seed-$s"
    [ -f "$d/a.stdout" ] && [ ! -L "$d/a.stdout" ] || fail "seed $s: no regular a.stdout"
    grep -qx "a out [0-9]*" "$d/a.stdout" || fail "seed $s a.stdout: $(cat "$d/a.stdout")"
    [ "$(cat "$d/a.stderr")" = "a err" ] || fail "seed $s a.stderr: $(cat "$d/a.stderr")"
    [ "$(cat "$d/b.stdout")" = "$(printf 'b out\nline 2')" ] || fail "seed $s b.stdout: $(cat "$d/b.stdout")"
    [ -f "$d/b.stderr" ] && [ ! -s "$d/b.stderr" ] || fail "seed $s: b.stderr missing or not empty"
    [ "$(cat "$d/check.out")" = "$(cat "$d/a.stdout" "$d/b.stdout")" ] || fail "seed $s check.out: $(cat "$d/check.out")"
done
[ "$(cat "$TMP/victim")" = victim ] || fail "a symlink in the output directory was followed"
# A failing seed keeps its outputs too (and its disk).
write_conf "$TMP/f.conf" <<'CONF'
[machine a]
command = echo before; echo oops >&2; echo data >/tmp/f; exit 3
CONF
timeout -k 5 60 "$DSIM" run "$TMP/f.conf" --seeds 1 --output "$TMP/f" >"$TMP/f.out" 2>&1; rc=$?
[ $rc = 1 ] || { cat "$TMP/f.out"; fail "failing seed: exit status $rc, not 1"; }
[ "$(cat "$TMP/f/seed-1/a.stdout")" = before ] && [ "$(cat "$TMP/f/seed-1/a.stderr")" = oops ] ||
    fail "failing seed's outputs not kept"
[ "$(cat "$TMP/f/seed-1/disk/a/tmp/f")" = data ] || fail "failing seed's disk not kept"
# The same seed twice: the same kept files.
timeout -k 5 60 "$DSIM" run "$TMP/c.conf" --seeds 2 --output "$TMP/o2" >/dev/null 2>&1 || fail "second run failed"
diff -r "$TMP/o/seed-2" "$TMP/o2/seed-2" || fail "kept outputs differ between two runs of seed 2"
