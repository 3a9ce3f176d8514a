#!/bin/bash
# Malformed cluster configs: `dsim run` exits 2 with a "FILE:LINE: message"
# on stderr naming the offending line, never crashes, and runs no seed.
. "$(dirname "$0")/lib.sh"

[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"

CASES=0
# try CONF: run dsim on CONF, from a scratch directory (to catch core files);
# sets rc and $TMP/err.
try() {
    mkdir -p "$TMP/cwd"
    (cd "$TMP/cwd" && timeout -k 5 60 "$DSIM" run "$1" --seeds 1) >"$TMP/out" 2>"$TMP/err"
    rc=$?
    CASES=$((CASES + 1))
}
show() { echo "--- stdout:" >&2; cat "$TMP/out" >&2; echo "--- stderr:" >&2; cat -v "$TMP/err" >&2; }
# no_crash WHAT: exit 2 exactly (not a signal, not the timeout), no core file,
# no seed reported.
no_crash() {
    [ "$rc" = 2 ] || { show; fail "$1: exit $rc, expected 2"; }
    [ -z "$(ls -A "$TMP/cwd")" ] || fail "$1: left files behind (a core dump?): $(ls -A "$TMP/cwd")"
    ! grep -q 'FAILED' "$TMP/out" || { show; fail "$1: a seed ran"; }
}
# expect_line WHAT CONF LINE: exit 2 and a "CONF:LINE: message" line on stderr.
expect_line() {
    no_crash "$1"
    grep -Eq "^$(re "$2"):$3: .+" "$TMP/err" ||
        { show; fail "$1: stderr has no '$2:$3: message' line"; }
}
# expect_some_line WHAT CONF: exit 2 and a "CONF:N: message" line, any N.
expect_some_line() {
    no_crash "$1"
    grep -Eq "^$(re "$2"):[0-9]+: .+" "$TMP/err" ||
        { show; fail "$1: stderr has no '$2:LINE: message' line"; }
}
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

D=$TMP/confs
mkdir -p "$D"

# Empty file: no machines. The line is not pinned down.
: >"$D/empty.conf"
try "$D/empty.conf"
expect_some_line "empty file" "$D/empty.conf"

# Only comments and an empty [simulation]: still no machines.
printf '# nothing\n[simulation]\nduration = 5s\n' >"$D/nomachines.conf"
try "$D/nomachines.conf"
expect_some_line "no machines" "$D/nomachines.conf"

# Binary garbage: a fixed blob, then random ones. The line is unknown, but
# the message starts with the file name and dsim does not crash.
printf '\x7fELF\x02\x01\x01\x00\x00\x00\n\xff\xfe[\x00\x01]\n=\x80\x81\n\x00\x00\x00' >"$D/blob.conf"
try "$D/blob.conf"
no_crash "fixed binary blob"
grep -q "^$(re "$D/blob.conf"):" "$TMP/err" || { show; fail "fixed binary blob: no 'FILE:' prefix"; }
for i in 1 2 3 4 5; do
    head -c 200 /dev/urandom >"$D/garbage$i.conf"
    try "$D/garbage$i.conf"
    no_crash "random garbage $i"
    grep -q "^$(re "$D/garbage$i.conf"):" "$TMP/err" ||
        { show; cp "$D/garbage$i.conf" "${TMPDIR:-/tmp}/dsim-garbage-failed.conf";
          fail "random garbage $i: no 'FILE:' prefix (input kept in ${TMPDIR:-/tmp}/dsim-garbage-failed.conf)"; }
done

# Unknown section, header on line 5 (its first key on line 6).
cat >"$D/section.conf" <<'EOF'
[simulation]
duration = 10s

# a typo below
[machnie a]
command = true
EOF
try "$D/section.conf"
no_crash "unknown section"
grep -Eq "^$(re "$D/section.conf"):(5|6): .+" "$TMP/err" ||
    { show; fail "unknown section: no '$D/section.conf:5: message' line"; }

# Unknown key on line 4.
cat >"$D/key.conf" <<'EOF'
[machine a]
command = true
start = 1s
colour = blue
EOF
try "$D/key.conf"
expect_line "unknown key" "$D/key.conf" 4

# Unknown key in [simulation], line 3.
cat >"$D/simkey.conf" <<'EOF'
[simulation]
duration = 10s
speed = fast

[machine a]
command = true
EOF
try "$D/simkey.conf"
expect_line "unknown key in [simulation]" "$D/simkey.conf" 3

# Bad durations.
n=0
for bad in '30 parsecs' abc '-5s' '' '10x' '99999999999999999999h'; do
    n=$((n + 1))
    cat >"$D/dur$n.conf" <<EOF
# bad duration: '$bad'

[simulation]
duration = $bad

[machine a]
command = true
EOF
    try "$D/dur$n.conf"
    expect_line "bad duration '$bad'" "$D/dur$n.conf" 4
done

# A bad start time, line 3.
cat >"$D/start.conf" <<'EOF'
[machine a]
command = true
start = soon
EOF
try "$D/start.conf"
expect_line "bad start" "$D/start.conf" 3

# Duplicate machine: the second header, line 7.
cat >"$D/dup.conf" <<'EOF'
[machine a]
command = true

[machine b]
command = true

[machine a]
command = false
EOF
try "$D/dup.conf"
expect_line "duplicate machine" "$D/dup.conf" 7

# Missing command: the machine's header, line 4.
cat >"$D/nocmd.conf" <<'EOF'
[machine a]
command = true

[machine b]
start = 1s
env = X=1
EOF
try "$D/nocmd.conf"
expect_line "machine without command" "$D/nocmd.conf" 4

# A config given by a relative path is reported by that path.
cp "$D/key.conf" "$TMP/cwd-rel.conf"
mkdir -p "$TMP/cwd"
(cd "$TMP" && timeout -k 5 60 "$DSIM" run cwd-rel.conf --seeds 1) >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 2 ] || { show; fail "relative path: exit $rc, expected 2"; }
grep -Eq "^cwd-rel\.conf:4: .+" "$TMP/err" || { show; fail "relative path: no 'cwd-rel.conf:4: message' line"; }

# A nonexistent config file: exit 2, the message names the file.
try "$D/does-not-exist.conf"
no_crash "nonexistent file"
grep -qF "$D/does-not-exist.conf" "$TMP/err" || { show; fail "nonexistent file: stderr does not name the file"; }

# A directory instead of a file.
mkdir -p "$D/adir.conf"
try "$D/adir.conf"
no_crash "a directory"
grep -qF "$D/adir.conf" "$TMP/err" || { show; fail "a directory: stderr does not name it"; }

# Usage errors also exit 2: a malformed seed list.
printf '[machine a]\ncommand = true\n' >"$D/good.conf"
for spec in abc 1-x '' -3 '1,,2'; do
    (cd "$TMP/cwd" && timeout -k 5 60 "$DSIM" run "$D/good.conf" --seeds "$spec") >"$TMP/out" 2>"$TMP/err"
    rc=$?
    no_crash "--seeds '$spec'"
    [ -s "$TMP/err" ] || fail "--seeds '$spec': no message on stderr"
done
# ...and the good config itself is fine (so the errors above are the config's).
(cd "$TMP/cwd" && timeout -k 5 60 "$DSIM" run "$D/good.conf" --seeds 1) >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 0 ] || { show; fail "the good config: exit $rc"; }
note "ok ($CASES cases)"
