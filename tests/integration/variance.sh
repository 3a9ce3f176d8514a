# Sourced by t_host_variance.sh and t_net_host_variance.sh, after lib.sh
# (and, for network tests, after net_dsim_wrapper): one seed of a config,
# run under everything the host may vary, must give one trace hash and the
# same machine outputs every time.
#
# variance_matrix DIR CONF SEED: DIR holds CONF and every file its machines
# use. Runs the seed with the config in DIR, in a copy at a path with
# spaces, with TMPDIR unset, /tmp and a scratch directory with a long path,
# with extra and changed environment variables and with `env -i`, pinned to
# each CPU the test may use and unpinned, and on a busy host (busy loops on
# every CPU); runs seeds SEED..SEED+2 with -j 1 and with -j 2. Fails at the
# first difference from the first run; prints the hash.

# var_run LABEL CONFPATH SEEDS [COMMAND PREFIX...]: `dsim run`, from /, with
# --output and --results under $TMP/var/LABEL.
var_run() {
    local label=$1 conf=$2 seeds=$3
    shift 3
    local out=$TMP/var/$label
    rm -rf "$out"
    mkdir -p "$out"
    (cd / && "$@" "$DSIM" run "$conf" --seeds "$seeds" ${VAR_JOBS:+-j "$VAR_JOBS"} --keep-going \
        --output "$out/out" --results "$out/r.jsonl" >"$out/run.out" 2>&1)
    [ -s "$out/r.jsonl" ] || { cat "$out/run.out" >&2; fail "$label: dsim wrote no results"; }
}

# var_hash LABEL SEED: the hash and outcome of SEED in LABEL's results.
var_hash() { result_of "$TMP/var/$1/r.jsonl" "$2"; }

# var_same LABEL SEED: LABEL's run of SEED matches the first one (base).
var_same() {
    local got want
    got=$(var_hash "$1" "$2")
    want=$(var_hash base "$2")
    [ -n "$got" ] || { cat "$TMP/var/$1/run.out" >&2; fail "$1: no result for seed $2"; }
    [ "$got" = "$want" ] || { cat "$TMP/var/$1/run.out" >&2; fail "$1: seed $2 gave $got, the first run $want"; }
    diff -r "$TMP/var/base/out/seed-$2" "$TMP/var/$1/out/seed-$2" >&2 ||
        fail "$1: seed $2's machine outputs differ from the first run's"
}

variance_matrix() {
    local dir=$1 conf=$2 seed=$3
    var_run base "$dir/$conf" "$seed"

    # The config's directory: a copy elsewhere, at a path with spaces.
    local copy="$TMP/another place/with spaces"
    rm -rf "$TMP/another place"
    mkdir -p "$copy"
    cp -a "$dir/." "$copy/"
    var_run copy "$copy/$conf" "$seed"
    var_same copy "$seed"

    # TMPDIR: unset (dsim uses /tmp), /tmp, a scratch directory whose path is
    # longer than an AF_UNIX address holds. /tmp/dsim-runs is removed again
    # if this test made it.
    local made_runs=""
    [ -d /tmp/dsim-runs ] || made_runs=1
    var_run tmp-unset "$dir/$conf" "$seed" env -u TMPDIR
    var_same tmp-unset "$seed"
    var_run tmp-tmp "$dir/$conf" "$seed" env TMPDIR=/tmp
    var_same tmp-tmp "$seed"
    [ -z "$made_runs" ] || rmdir /tmp/dsim-runs 2>/dev/null
    local long="$TMP/a-scratch-directory-whose-path-is-longer-than-an-AF_UNIX-socket-address-holds"
    mkdir -p "$long"
    var_run tmp-long "$dir/$conf" "$seed" env TMPDIR="$long"
    var_same tmp-long "$seed"

    # The caller's environment.
    var_run env-extra "$dir/$conf" "$seed" env MALLOC_PERTURB_=165 POSIXLY_CORRECT=1 PYTHONHASHSEED=7 \
        PYTHONDONTWRITEBYTECODE=1 GOMAXPROCS=1 OMP_NUM_THREADS=3 HOME=/nonexistent USER=nobody \
        TERM=xterm-256color COLUMNS=40 LD_BIND_NOW=1 DSIM_SEED=99
    var_same env-extra "$seed"
    local path_reversed
    path_reversed=$(tr ':' '\n' <<<"$PATH" | tac | paste -sd: -)
    var_run env-locale "$dir/$conf" "$seed" env LANG=de_DE.UTF-8 LC_ALL=C.UTF-8 TZ=Pacific/Chatham \
        PATH="$path_reversed"
    var_same env-locale "$seed"
    var_run env-empty "$dir/$conf" "$seed" env -i
    var_same env-empty "$seed"

    # CPU affinity.
    local cpu
    for cpu in $(busy_cpus); do
        var_run "cpu$cpu" "$dir/$conf" "$seed" taskset -c "$cpu"
        var_same "cpu$cpu" "$seed"
    done

    # A sweep with one worker and with two: each seed its hash.
    local last=$((seed + 2)) s
    VAR_JOBS=1 var_run j1 "$dir/$conf" "$seed-$last"
    VAR_JOBS=2 var_run j2 "$dir/$conf" "$seed-$last"
    for s in $(seq "$seed" "$last"); do
        [ "$(var_hash j1 "$s")" = "$(var_hash j2 "$s")" ] ||
            fail "seed $s: -j 1 gave $(var_hash j1 "$s"), -j 2 $(var_hash j2 "$s")"
    done
    var_same j1 "$seed"
    var_same j2 "$seed"
    [ "$(var_hash j1 "$seed")" != "$(var_hash j1 $((seed + 1)))" ] ||
        fail "seeds $seed and $((seed + 1)) gave one hash: the matrix could not see a difference"

    # A busy host: two busy loops on every CPU while it runs.
    busy_start 2
    var_run busy "$dir/$conf" "$seed"
    busy_stop
    var_same busy "$seed"
    var_hash base "$seed" | cut -d' ' -f1
}
