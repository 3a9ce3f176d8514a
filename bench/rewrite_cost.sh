#!/bin/bash
# rewrite_cost.sh [N]: what rewriting machine code (rdtsc, rdtscp, rdrand,
# rdseed; docs/design.md section 5) costs. Run it by hand, as root, after
# `make`; `make check` does not run it.
#
#   scan, per file      finding a file's sites (ELF tables, opcode scan,
#                       Zydis decoding): paid once per file per dsim process
#                       (a sweep's worker reuses it for every later seed)
#   dsim exec, per run  median wall time of N runs of `dsim exec` of
#                       python3 -c pass and etcd --version, with --tsc
#                       rewrite and, where the host makes rdtsc fault, with
#                       --tsc trap; and natively
#   sweep, per seed     a 10-seed sweep of one python3 machine with -j 1:
#                       the first seed pays the scans, the others do not
#
# dsim is $DSIM, or ../dsim relative to this script.
set -u
N=${1:-7}
case $N in ''|*[!0-9]*) echo "usage: $0 [N]   (runs per measurement, default 7)" >&2; exit 2 ;; esac
HERE=$(cd "$(dirname "$0")" && pwd -P)
ROOT=$HERE/..
DSIM=${DSIM:-$ROOT/dsim}
[ -x "$DSIM" ] || { echo "rewrite_cost: no dsim at $DSIM (build it, or set DSIM)" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dsim-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
${CC:-cc} -O2 -std=gnu11 -I"$ROOT" -o "$TMP/code_scan" "$HERE/code_scan.c" "$ROOT/code/elf_code.c" \
    "$ROOT/code/sites.c" -lZydis || { echo "rewrite_cost: cannot build code_scan" >&2; exit 1; }

echo "== scan, per file (best of 5)"
files=$(for f in /usr/bin/python3 /lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/libc.so.6 \
                 /lib/x86_64-linux-gnu/libstdc++.so.6 /lib/x86_64-linux-gnu/libcrypto.so.3 /usr/bin/etcd /usr/bin/node; do
            [ -e "$f" ] && readlink -f "$f"; done)
# shellcheck disable=SC2086
"$TMP/code_scan" $files

now_ns() { date +%s%N; }
# median_ms CMD...: the median wall time of N runs, in ms.
median_ms() {
    local t=()
    for _ in $(seq "$N"); do
        local a; a=$(now_ns)
        "$@" >/dev/null 2>&1
        t+=($(( ($(now_ns) - a) / 1000 )))
    done
    printf '%s\n' "${t[@]}" | sort -n | sed -n "$(( (N + 1) / 2 ))p" | awk '{ printf "%.1f", $1 / 1000 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

traps=no
"$DSIM" doctor | grep -q '^  rdtsc faults under PR_SET_TSC *yes' && traps=yes
echo "== dsim exec, per run (median of $N; rdtsc faults on this host: $traps)"
run_case() {
    local name=$1; shift
    local native rw tr
    native=$(median_ms "$@")
    rw=$(median_ms "$DSIM" exec --tsc rewrite -- "$@")
    if [ $traps = yes ]; then
        tr=$(median_ms "$DSIM" exec --tsc trap -- "$@")
        printf '%-22s native %7s ms  trap %7s ms  rewrite %7s ms  rewrite/trap %s\n' "$name" "$native" "$tr" "$rw" "$(ratio "$rw" "$tr")"
    else
        printf '%-22s native %7s ms  rewrite %7s ms  (trap: not on this host)  rewrite/native %s\n' "$name" "$native" "$rw" "$(ratio "$rw" "$native")"
    fi
}
run_case "python3 -c pass" python3 -c pass
command -v etcd >/dev/null && run_case "etcd --version" etcd --version

echo "== sweep of 10 seeds, python3 -c pass, -j 1"
printf '[simulation]\nduration = 10s\n[machine m]\ncommand = python3 -c pass\n' >"$TMP/py.conf"
for mode in rewrite $( [ $traps = yes ] && echo trap ); do
    a=$(now_ns)
    "$DSIM" run "$TMP/py.conf" --seeds 1-10 -j 1 --tsc "$mode" >/dev/null 2>&1 || echo "rewrite_cost: the sweep failed ($mode)" >&2
    printf '%-8s %.1f ms per seed\n' "$mode" "$(awk -v t=$(( ($(now_ns) - a) / 1000 )) 'BEGIN { print t / 10000 }')"
done
