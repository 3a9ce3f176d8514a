# Sourced by the examples' tests (t_example_*.sh), after lib.sh.
#
# example_first_failure CONF SEEDS WANT: sweeps CONF over SEEDS (stopping at
# the first failure) and prints "SEED HASH" of the seed that failed; its
# report must say it failed with WANT (the text after "FAILED: ") and name
# how to replay it. The sweep's output stays in $TMP/sweep.out.
example_first_failure() {
    timeout -k 5 600 "$DSIM" run "$1" --seeds "$2" -j 2 >"$TMP/sweep.out" 2>&1
    local rc=$? line seed hash
    [ "$rc" = 1 ] || { cat "$TMP/sweep.out" >&2; fail "$1: seeds $2: exit $rc, expected 1 (a failing seed)"; }
    line=$(grep -E '^seed [0-9]+ FAILED: ' "$TMP/sweep.out" | head -n 1)
    seed=$(sed -E 's/^seed ([0-9]+) FAILED: .*/\1/' <<<"$line")
    [ "$line" = "seed $seed FAILED: $3" ] || { cat "$TMP/sweep.out" >&2; fail "$1: seed $seed failed otherwise: $line"; }
    grep -qE "^  replay: dsim replay .*$(basename "$1") $seed\$" "$TMP/sweep.out" ||
        fail "$1: the report does not say how to replay seed $seed"
    hash=$(grep -A1 -x "$line" "$TMP/sweep.out" | sed -n 's/.*, trace hash \([0-9a-f]*\)$/\1/p')
    [ ${#hash} = 32 ] || fail "$1: no trace hash in seed $seed's report"
    echo "$seed $hash"
}

# example_replays CONF SEED HASH: two runs of SEED (dsim verify) give HASH.
example_replays() {
    timeout -k 5 600 "$DSIM" verify "$1" --seed "$2" --runs 2 >"$TMP/verify.out" 2>&1
    [ "$(tail -n 1 "$TMP/verify.out")" = "$3" ] ||
        { cat "$TMP/verify.out" >&2; fail "$1: seed $2 does not replay to the sweep's hash $3"; }
}

# example_all_pass CONF SEEDS: every seed of SEEDS passes.
example_all_pass() {
    timeout -k 5 600 "$DSIM" run "$1" --seeds "$2" -j 2 --keep-going >"$TMP/pass.out" 2>&1 ||
        { grep -A12 FAILED "$TMP/pass.out" >&2; fail "$1: a seed of $2 failed"; }
}

# example_refuses_real_network PROG ARGS...: run natively in a fresh network
# namespace that has a veth pair besides lo (both ends in that namespace,
# gone with it), PROG must refuse to start: exit 3, naming the interfaces.
example_refuses_real_network() {
    timeout -k 5 60 $NET_UNSHARE sh -c 'ip link add dsimv0 type veth peer name dsimv1 || exit 99
        exec "$@"' sh "$@" >"$TMP/refuse.out" 2>&1
    local rc=$?
    [ "$rc" != 99 ] || fail "cannot make a veth pair in a fresh network namespace: $(cat "$TMP/refuse.out")"
    [ "$rc" = 3 ] && grep -q "refusing to run outside an empty network namespace" "$TMP/refuse.out" ||
        { cat "$TMP/refuse.out" >&2; fail "$*: exit $rc beside a second interface, expected 3 (a refusal)"; }
}
