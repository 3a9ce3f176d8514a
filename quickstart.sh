#!/bin/sh
# Quick start on a fresh Debian 12 machine (as root): install the build
# dependencies, build dsim, and run the flagship example: a racy counter that
# some seed catches losing an update, then that seed replayed exactly.
set -eu
cd "$(dirname "$0")"
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq build-essential autoconf automake pkg-config \
    libseccomp-dev libunwind-dev check libinih-dev libxxhash-dev libjansson-dev zlib1g-dev libzydis-dev python3 nodejs golang-go \
    etcd-server etcd-client redis-server redis-tools postgresql-15 python3-psycopg2 yamllint strace iproute2 util-linux libcap2-bin >/dev/null
# The packages start a host etcd, redis and PostgreSQL where systemd runs; dsim's tests want none.
$SUDO systemctl disable --now etcd redis-server postgresql >/dev/null 2>&1 || true
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j"$(nproc)"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo '$ ./dsim run examples/race/cluster.conf --seeds 1-100'
status=0
./dsim run examples/race/cluster.conf --seeds 1-100 >"$out" || status=$?
cat "$out"
if [ "$status" -ne 1 ]; then
    echo "expected a failing seed (exit status 1), got $status"; exit 1
fi
seed=$(sed -n 's/^seed \([0-9]*\) FAILED.*/\1/p' "$out" | head -n 1)
echo
echo "\$ ./dsim verify examples/race/cluster.conf --seed $seed --runs 3"
./dsim verify examples/race/cluster.conf --seed "$seed" --runs 3
