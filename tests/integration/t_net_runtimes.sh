#!/bin/bash
# TCP from the Go runtime (netpoller) and Node (libuv) under dsim: a server
# and 3 clients over 127.0.0.1 print what they print natively, and one seed
# gives one trace hash. Everything runs inside `unshare --net`.
# netns.sh re-executes the script in an empty network namespace before
# lib.sh makes $TMP (a re-exec after it left the first one behind).
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null || fail "go is not installed (.ci/run installs golang-go)"
command -v node >/dev/null || fail "node is not installed (.ci/run installs nodejs)"

mkdir -p "$TMP/go"
cp "$PROGS"/go_tcp_echo/* "$TMP/go/"
(cd "$TMP/go" && HOME="$TMP" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GOPROXY=off GOFLAGS=-mod=mod \
    go build -o "$TMP/goecho" .) || fail "go build failed"

check() {   # NAME PROGRAM...
    local name=$1; shift
    native_ok --runs 0 "$@"
    local h; h=$(dsim_as_native --seeds "" "$@") || exit 1
    note "$name: seed 1 hash $h"
}
check go "$TMP/goecho"
check node node "$PROGS/node_tcp_echo.js"
