#!/bin/bash
# py_subprocess.py under dsim: subprocess.run/check_output/Popen, a shell
# pipeline, return codes (3, killed by SIGTERM) and os.fork()+os.waitpid()
# behave as natively, and one seed gives one trace hash.
. "$(dirname "$0")/lib.sh"

# Every dsim invocation goes through `timeout 60`.
[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"
REAL_DSIM=$DSIM
DSIM=$TMP/dsim-timeout
printf '#!/bin/sh\nexec timeout -k 5 60 "%s" "$@"\n' "$REAL_DSIM" >"$DSIM"
chmod +x "$DSIM"

PY=/usr/bin/python3
prog=$PROGS/py_subprocess.py

"$PY" "$prog" >"$TMP/native.out" || fail "py_subprocess failed natively"
[ "$(tail -n 1 "$TMP/native.out")" = "all ok" ] || fail "native run did not finish"

h=$(same_hash_twice 1 "$PY" "$prog") || exit 1
note "seed 1 hash $h"
diff "$TMP/native.out" "$TMP/a.out" >&2 || fail "seed 1: output differs from native"

# The program's output does not depend on the seed.
dsim_exec 2 "$PY" "$prog" >"$TMP/s2.out"; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/exec.err" >&2; fail "seed 2: exit $rc"; }
diff "$TMP/native.out" "$TMP/s2.out" >&2 || fail "seed 2: output differs from native"
[ -n "$(exec_hash)" ] || fail "seed 2: no trace hash"
note "ok"
