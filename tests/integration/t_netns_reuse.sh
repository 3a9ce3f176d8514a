#!/bin/bash
# A machine's network namespace is kept from one seed to the next when
# nothing is left in it (DSIM_NETNS=reuse, the default): a machine cannot
# change lo, routes or sysctls there, and its TCP and UDP are simulated, so
# only a unix socket can outlive its machine, as a socket in flight on
# itself does until the kernel's next garbage collection. A namespace with
# one left is not joined. Each seed of a sweep then sees what a new
# namespace shows (lo untouched, no unix socket, an abstract name free),
# with the same hash as with DSIM_NETNS=fresh (a new one every time); two
# seeds differ. A machine started again after a crash gets a new one.
# No real network (nor a host namespace touched): see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
dsim_timeout 120
nl=$(build netns_leftovers)
mkdir -p "$TMP/c"
cd "$TMP/c"
cat >one.conf <<CONF
[simulation]
duration = 5s
[machine a]
command = $nl
[machine b]
command = $nl
CONF
for mode in reuse fresh; do
    DSIM_NETNS=$mode "$DSIM" run one.conf --seeds 1-8 -j 1 --keep-going --results "$TMP/$mode.jsonl" \
        --output "$TMP/$mode" >"$TMP/$mode.out" 2>&1 || { cat "$TMP/$mode.out" >&2; fail "DSIM_NETNS=$mode: the sweep failed"; }
    for s in 1 2 3 4 5 6 7 8; do
        for m in a b; do
            o=$TMP/$mode/seed-$s/$m.stdout
            grep -q '^unix sockets 0$' "$o" || fail "$mode seed $s machine $m: $(cat "$o")"
            grep -q '^bind ok$' "$o" || fail "$mode seed $s machine $m: the name was taken: $(cat "$o")"
            grep -Eq '^dev +lo: +0 +0 ' "$o" || fail "$mode seed $s machine $m: lo carried traffic: $(cat "$o")"
        done
    done
    sed 's/.*"seed":\([0-9]*\).*"hash":"\([0-9a-f]*\)".*/\1 \2/' "$TMP/$mode.jsonl" | sort -n >"$TMP/$mode.hashes"
done
cmp -s "$TMP/reuse.hashes" "$TMP/fresh.hashes" || { diff "$TMP/reuse.hashes" "$TMP/fresh.hashes" >&2; fail "reuse and fresh give other hashes"; }
[ "$(cut -d' ' -f2 "$TMP/reuse.hashes" | sort -u | wc -l)" -gt 1 ] || fail "seeds 1-8 gave one hash"
# A machine started again after a crash gets a new namespace in both
# modes: its /proc/self/net entries are new ones (another inode number),
# as in a seed from a snapshot, whose worker's template holds the kept one.
cat >restart.conf <<'CONF'
[simulation]
duration = 5s
[machine a]
command = exec sh -c 'stat -L -c "net/dev %i" /proc/self/net/dev; sleep 2'
[fault boom]
kind = crash
at = 1s
machine = a
duration = 500ms
CONF
for mode in reuse fresh; do
    DSIM_NETNS=$mode "$DSIM" run restart.conf --seeds 1-2 -j 1 --results "$TMP/restart-$mode.jsonl" --output "$TMP/restart-$mode" \
        >"$TMP/restart-$mode.out" 2>&1 || { cat "$TMP/restart-$mode.out" >&2; fail "restart, DSIM_NETNS=$mode: the sweep failed"; }
    o=$TMP/restart-$mode/seed-1/a.stdout
    [ "$(grep -c '^net/dev [0-9]*$' "$o")" = 2 ] && [ "$(sort -u "$o" | wc -l)" = 2 ] ||
        { cat "$o" >&2; fail "restart, DSIM_NETNS=$mode: not a new /proc/self/net/dev after the crash"; }
done
[ "$(grep -o '"hash":"[0-9a-f]*"' "$TMP/restart-reuse.jsonl")" = "$(grep -o '"hash":"[0-9a-f]*"' "$TMP/restart-fresh.jsonl")" ] ||
    fail "restart: reuse and fresh give other hashes"
# One seed, verified: one hash.
h=$(DSIM_NETNS=reuse one_hash one.conf 3)
[ "$h" = "$(sed -n 's/^3 //p' "$TMP/reuse.hashes")" ] || fail "verify of seed 3 disagrees with the sweep"
DSIM_NETNS=sometimes "$DSIM" exec -- /bin/true 2>"$TMP/bad.err"
[ $? = 2 ] || fail "a bad DSIM_NETNS was not refused with status 2"
grep -q 'DSIM_NETNS=sometimes: reuse or fresh expected' "$TMP/bad.err" || fail "bad DSIM_NETNS: $(cat "$TMP/bad.err")"
note "8 seeds, two machines each: what a new namespace shows, reused or not; hashes $(head -c 40 "$TMP/reuse.hashes" | tr '\n' ' ')"
