# Sourced by the warm start tests (t_warm_snapshot.sh, t_warm_threads.sh)
# after lib.sh and netns.sh, in $TMP, whose c/ holds the configs (which
# every machine sees: results and outputs go beside it, not in it).
conf() {        # conf FILE WARM_START MACHINES COMMAND-ARGS...: [machine NAME] for each of MACHINES
    local file=c/$1 point=$2 machines=$3
    shift 3
    printf '[simulation]\nduration = 10s\nwarm_start = %s\n[defaults]\nenv = PYTHONDONTWRITEBYTECODE=1\n' "$point" >"$file"
    printf '[network]\nlatency = 1ms..20ms\n' >>"$file"
    for m in $machines; do printf '[machine %s]\ncommand = %s\n' "$m" "${*//NAME/$m}" >>"$file"; done
}
hashes() { python3 -c 'import json,sys
print(" ".join(json.loads(l)["hash"] for l in open(sys.argv[1])))' "$1"; }
# sweep CONF NAME [OPTIONS...]: seeds $SEEDS (1-5), -j 2, results NAME.jsonl, outputs out-NAME, stderr NAME.err
sweep() {
    local c=c/$1 n=$2
    shift 2
    "$DSIM" run "$c" --seeds "${SEEDS:-1-5}" -j 2 --results "$n.jsonl" --output "out-$n" "$@" >"$n.log" 2>"$n.err" ||
        { cat "$n.log" "$n.err" >&2; fail "$n: a seed failed"; }
}
# three_ways CONF NAME: snapshot, cold and replay agree on every seed's hash, and outputs match
three_ways() {
    local c=$1 n=$2
    sweep "$c" "$n"
    sweep "$c" "$n-cold" --warm cold
    [ "$(hashes "$n.jsonl")" = "$(hashes "$n-cold.jsonl")" ] ||
        { paste <(hashes "$n.jsonl" | tr ' ' '\n') <(hashes "$n-cold.jsonl" | tr ' ' '\n') >&2
          fail "$n: the sweep's hashes are not the cold sweep's"; }
    diff -r "out-$n" "out-$n-cold" >&2 || fail "$n: outputs differ from the cold sweep's"
    local s=1
    for h in $(hashes "$n.jsonl"); do
        "$DSIM" replay "c/$c" $s >"replay-$n-$s.out" 2>&1 || { cat "replay-$n-$s.out" >&2; fail "$n: replay of seed $s failed"; }
        grep -q "trace hash $h" "replay-$n-$s.out" || { cat "replay-$n-$s.out" >&2; fail "$n: replay of seed $s: not $h"; }
        s=$((s + 1))
    done
    [ -s "$n-cold.err" ] && { cat "$n-cold.err" >&2; fail "$n: --warm cold said something"; }
    note "$n: seeds ${SEEDS:-1-5} from the snapshot, cold and replayed: one hash each ($(hashes "$n.jsonl" | cut -c1-8)...)"
}

# snapshot_said NAME: the sweep NAME said its seeds start from a snapshot,
# and did not fall back to cold ones.
snapshot_said() {
    grep -qx 'dsim: warm start: seeds start from a snapshot of the point' "$1.err" || { cat "$1.err" >&2; fail "$1: no snapshot"; }
    ! grep -q 'the snapshot serves no more seeds' "$1.err" || { cat "$1.err" >&2; fail "$1: seeds ran cold after all"; }
}
# afresh_said NAME: the sweep NAME, whose machines hold event loops' fds at
# the point, started from a snapshot where this host tells what a copy
# needs to make them anew (dsim doctor), else said why not and ran cold.
host_tells=$("$DSIM" doctor | grep -c '^  unix sock_diag, eventfd mode in fdinfo *yes')
afresh_said() {
    if [ "$host_tells" = 1 ]; then snapshot_said "$1"; return; fi
    grep -q '^dsim: warm start: seeds run cold, not from a snapshot: machine ' "$1.err" || { cat "$1.err" >&2; fail "$1: not said"; }
}
# probe_env CONF VAR: warm_probe.py in CONF's machines gets VAR=1.
probe_env() { printf 'env = PYTHONDONTWRITEBYTECODE=1\nenv = %s=1\n' "$2" >>"c/$1"; }

