#!/bin/bash
# The ready-to-use CI files of docs/ci pass yamllint, and the shard each
# one hands dsim covers the sweep: their own dsim lines, run as each CI
# system would run them (GitHub's matrix expressions filled in; GitLab's,
# Slurm's and Kubernetes' variables set with each system's own base), run
# every seed of 1-30 exactly once over the jobs, and dsim merge of their
# results is the whole sweep.
. "$(dirname "$0")/lib.sh"
CI=$SRCDIR/docs/ci
command -v yamllint >/dev/null || fail "yamllint is not installed (apt-get install yamllint)"
yamllint -s -c "$CI/.yamllint" "$CI"/*.yml "$CI"/*.yaml || fail "yamllint"
mkdir -p "$TMP/bin" "$TMP/w"
ln -s "$DSIM" "$TMP/bin/dsim"
write_conf "$TMP/w/cluster.conf" <<'CONF'
[machine m]
command = true
CONF
# The jobs each file describes: one line per job, "ENV=... ; COMMAND".
python3 - "$CI" >"$TMP/jobs" <<'PY' || fail "cannot read the CI files"
import re, sys, yaml
ci = sys.argv[1]
def out(env, cmd):
    print(" ".join(f"{k}={v}" for k, v in env.items()) + " ;" + cmd.replace("\\\n", " ").strip().replace("\n", "; "))
gh = yaml.safe_load(open(f"{ci}/github-actions.yml"))
sweep = gh["jobs"]["sweep"]
shards = sweep["strategy"]["matrix"]["shard"]
run = [s["run"] for s in sweep["steps"] if "dsim run" in s.get("run", "")][0]
for k in shards:
    out({"CI_FILE": "github"}, run.replace("${{ matrix.shard }}", str(k)).replace("${{ strategy.job-total }}", str(len(shards))))
gl = yaml.safe_load(open(f"{ci}/gitlab-ci.yml"))
job = gl["dsim-sweep"]
run = [s for s in job["script"] if "dsim run" in s][0]
for k in range(1, job["parallel"] + 1):          # GitLab: 1-based
    out({"CI_FILE": "gitlab", "CI_NODE_INDEX": k, "CI_NODE_TOTAL": job["parallel"]}, "mkdir -p results; " + run)
text = open(f"{ci}/slurm-sweep.sbatch").read()
lo, hi = map(int, re.search(r"^#SBATCH --array=(\d+)-(\d+)$", text, re.M).groups())
run = [l for l in text.splitlines() if l.startswith("dsim run")][0]
for k in range(lo, hi + 1):                      # Slurm: from --array's first
    out({"CI_FILE": "slurm", "SLURM_ARRAY_TASK_ID": k, "SLURM_ARRAY_TASK_MIN": lo,
         "SLURM_ARRAY_TASK_MAX": hi, "SLURM_ARRAY_TASK_COUNT": hi - lo + 1}, "mkdir -p results; " + run)
kj = yaml.safe_load(open(f"{ci}/kubernetes-job.yaml"))
c = kj["spec"]["template"]["spec"]["containers"][0]
env = {e["name"]: e["value"] for e in c["env"]}
assert env["DSIM_SHARDS"] == str(kj["spec"]["completions"]), "DSIM_SHARDS is not completions"
for k in range(kj["spec"]["completions"]):       # Kubernetes: 0-based
    out({"CI_FILE": "kubernetes", "JOB_COMPLETION_INDEX": k, "DSIM_SHARDS": env["DSIM_SHARDS"]},
        c["args"][0].replace("/results/", "results/"))
PY
for sys in github gitlab slurm kubernetes; do
    rm -rf "$TMP/w/results"
    mkdir -p "$TMP/w/results"
    n=0
    while IFS= read -r job; do
        vars=${job%% ;*} cmd=${job#* ;}
        case "$vars" in "CI_FILE=$sys "*|"CI_FILE=$sys") ;; *) continue ;; esac
        n=$((n + 1))
        (cd "$TMP/w" && env -u CI_NODE_INDEX -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX \
            PATH="$TMP/bin:$PATH" CONF=cluster.conf SEEDS=1-30 $vars bash -c "$cmd") >"$TMP/$sys.$n.out" 2>&1 ||
            { cat "$TMP/$sys.$n.out"; fail "$sys job $n: $cmd"; }
    done <"$TMP/jobs"
    [ "$n" -ge 2 ] || fail "$sys: $n jobs"
    seeds=$(cat "$TMP"/w/results/shard-*.jsonl | sed 's/^{"seed":\([0-9]*\),.*/\1/' | sort -n | tr '\n' ' ')
    [ "$seeds" = "$(seq -s ' ' 1 30) " ] || fail "$sys: the $n jobs ran seeds $seeds"
    (cd "$TMP/w" && "$DSIM" merge --keep-going --junit results/junit.xml results/shard-*.jsonl) >"$TMP/$sys.merge" ||
        { cat "$TMP/$sys.merge"; fail "$sys: merge failed"; }
    grep -qx 'dsim: all 30 seeds passed' "$TMP/$sys.merge" || fail "$sys: merge: $(cat "$TMP/$sys.merge")"
    note "$sys: $n jobs ran seeds 1-30 once each; merged"
done
