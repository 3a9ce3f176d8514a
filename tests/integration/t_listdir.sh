#!/bin/bash
# Directory listings come in name order under dsim, whatever order the host
# filesystem keeps (ext4 hashes names with a per-filesystem seed), so a seed
# replays the same on another machine. Natively the order is the
# filesystem's; everything else must match. /proc lists in the kernel's
# order (numbers), as natively.
. "$(dirname "$0")/lib.sh"
prog=$(build listdir)
"$prog" "$TMP" >"$TMP/native.out" || fail "native run failed"
sed 1d "$TMP/native.out" >"$TMP/native.rest"
timeout -k 5 60 "$DSIM" exec --seed 1 -- "$prog" "$TMP" >"$TMP/dsim.out" 2>"$TMP/dsim.err" || { cat "$TMP/dsim.err"; fail "dsim run failed"; }
[ "$(head -n 1 "$TMP/dsim.out")" = sorted ] || fail "listing under dsim is not in name order"
sed 1d "$TMP/dsim.out" | cmp -s - "$TMP/native.rest" || fail "entries or seekdir differ from native"
h1=$(tail -n 1 "$TMP/dsim.err")
timeout -k 5 60 "$DSIM" exec --seed 1 -- "$prog" "$TMP" >"$TMP/dsim2.out" 2>"$TMP/dsim2.err"
[ "$h1" = "$(tail -n 1 "$TMP/dsim2.err")" ] || fail "hash differs between runs of one seed: $h1 vs $(tail -n 1 "$TMP/dsim2.err")"
# /proc keeps the kernel's own order (fds by number), as natively.
timeout -k 5 60 "$DSIM" exec -- /bin/bash -c 'exec 10</dev/null 9</dev/null; ls -f /proc/self/fd' 2>/dev/null |
    tr '\n' ' ' >"$TMP/fd.out"
[ "$(cat "$TMP/fd.out")" = ". .. 0 1 2 3 9 10 " ] || fail "/proc/self/fd listed as: $(cat "$TMP/fd.out")"
note "native first line: $(head -n 1 "$TMP/native.out"); dsim: sorted; $h1"
