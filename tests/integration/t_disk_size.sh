#!/bin/bash
# A machine's disk has a size ([machine] disk, 1 GiB by default): statfs
# reports it, a fallocate of 1 TiB gets ENOSPC, writes stop with ENOSPC at
# the size (here 64 MiB) and the space comes back when the file goes; the
# host's run directory holds no more than that. One seed gives one hash;
# a bad size is refused with file:line.
. "$(dirname "$0")/lib.sh"
prog=$(build disk_fill)
write_conf "$TMP/disk.conf" <<CONF
[simulation]
duration = 60s
[machine m]
command = $prog /var/tmp
disk = 64M
[machine d]
command = df -B1M --output=size / | tail -n 1
CONF
timeout -k 5 120 "$DSIM" replay "$TMP/disk.conf" 1 --output "$TMP/out" >"$TMP/replay.out" 2>&1 ||
    { cat "$TMP/replay.out" >&2; fail "seed 1 failed"; }
out="$TMP/out/seed-1/m.stdout"
expect() { grep -qx "$1" "$out" || { cat "$out" >&2; fail "expected: $1"; }; }
expect "size 64 MiB"
expect "fallocate 1 TiB ENOSPC"
grep -Eqx "wrote about 6[34] MiB, then ENOSPC" "$out" || { cat "$out" >&2; fail "writes did not stop at 64 MiB"; }
expect "free when full below 1 MiB 1"
expect "free after unlink above half 1"
[ "$(tr -d ' ' <"$TMP/out/seed-1/d.stdout")" = 1024 ] || fail "the default disk is not 1 GiB: $(cat "$TMP/out/seed-1/d.stdout")"
one_hash "$TMP/disk.conf" 1 >/dev/null || exit 1
printf '[machine m]\ncommand = true\ndisk = 3M\n' >"$TMP/bad.conf"
"$DSIM" run "$TMP/bad.conf" --seeds 1 >/dev/null 2>"$TMP/bad.err"
[ $? = 2 ] && grep -q "bad.conf:3: bad disk size" "$TMP/bad.err" || fail "a bad disk size: $(cat "$TMP/bad.err")"
note "64 MiB disk filled to ENOSPC; default 1 GiB"
