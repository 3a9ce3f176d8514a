#!/bin/bash
# make inside a machine. A machine's clock starts at 2025-01-01, so host
# files written since look like files from its future (make warns of clock
# skew and rebuilds every time); dsim(1) says to start the world's clock past
# them with [simulation] epoch, which this test does: then make builds once, finds
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
# The world's clock starting a day past the host's now ([simulation] epoch).
epoch=$(date -u -d tomorrow +%Y-%m-%d)
write_conf "$TMP/mk.conf" <<CONF
[simulation]
epoch = $epoch
[machine m]
command = sh $TMP/mk.sh $TMP/w
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
# The machine's wall clock starts at the epoch.
printf '[simulation]\nepoch = 2030-06-01T12:00:00Z\n[machine m]\ncommand = date -u +%%FT%%T\n[check]\ncommand = cat m.stdout\n' >"$TMP/d.conf"
timeout -k 5 60 "$DSIM" run "$TMP/d.conf" --seeds 1 2>/dev/null | grep -qx '2030-06-01T12:00:00' ||
    fail "epoch = 2030-06-01T12:00:00Z: the machine's date is $(timeout -k 5 60 "$DSIM" run "$TMP/d.conf" --seeds 1 2>&1)"
note "make with the epoch ($epoch) past the host's files: build, up to date, rebuild after touch, as native; hash $h"
