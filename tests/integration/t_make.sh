#!/bin/bash
# make inside a machine. A machine's clock starts at 2025-01-01, so host
# files written since look like files from its future (make warns of clock
# skew and rebuilds every time); dsim(1) says to move the machine's clock past
# them with clock_offset, which this test does: then make builds once, finds
# the target up to date, and rebuilds after a touch, with no warning, as it
# does natively. The target is copied with cat (copy_file_range) and cp
# (whose FICLONE is refused, as on ext4). One seed gives one hash.
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null || fail "make is not installed"
mkdir -p "$TMP/w"
printf 'out: in.c\n\tcat in.c > out\n\tcp out out2\n' >"$TMP/w/Makefile"
echo 'int x;' >"$TMP/w/in.c"
printf '#!/bin/sh\ncd "$1" && rm -f out out2 && make 2>&1 && make 2>&1 && touch in.c && make 2>&1\n' >"$TMP/mk.sh"
# Natively as in a machine: without the make check that runs this test.
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS sh "$TMP/mk.sh" "$TMP/w" >"$TMP/native.out" || fail "make failed natively"
# The machine's clock a day past the host's now.
hours=$(( ($(date +%s) - 1735689600) / 3600 + 24 ))
write_conf "$TMP/mk.conf" <<CONF
[machine m]
command = sh $TMP/mk.sh $TMP/w
clock_offset = ${hours}h
[check]
command = cat m.stdout
CONF
for i in 1 2; do
    timeout -k 5 60 "$DSIM" run "$TMP/mk.conf" --seeds 1 >"$TMP/run$i.out" 2>&1 || { cat "$TMP/run$i.out"; fail "make failed under dsim"; }
    grep -v '^dsim:' "$TMP/run$i.out" >"$TMP/dsim$i.out"
done
diff "$TMP/native.out" "$TMP/dsim1.out" >&2 || fail "make under dsim did not do what it does natively"
grep -q "is up to date" "$TMP/dsim1.out" || fail "the second make rebuilt"
h=$(timeout -k 5 60 "$DSIM" verify "$TMP/mk.conf" --seed 1 --runs 2 | tail -n 1) || fail "two runs of seed 1 differ"
note "make with the clock past the host's files: build, up to date, rebuild after touch, as native; hash $h"
