#!/bin/bash
# py_subprocess.py under dsim: subprocess.run/check_output/Popen, a shell
# pipeline, return codes (3, killed by SIGTERM) and os.fork()+os.waitpid()
# behave as natively, and one seed gives one trace hash.
. "$(dirname "$0")/lib.sh"

dsim_timeout

PY=/usr/bin/python3
prog=$PROGS/py_subprocess.py

"$PY" "$prog" >"$TMP/native.out" || fail "py_subprocess failed natively"
[ "$(tail -n 1 "$TMP/native.out")" = "all ok" ] || fail "native run did not finish"

# The program's output does not depend on the seed.
h=$(dsim_as_native --seeds 2 "$PY" "$prog") || exit 1
note "seed 1 hash $h"
note "ok"
