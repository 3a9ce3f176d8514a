# Sourced by the bench scripts after their usage check, with NAME set to
# the script's name for messages. Sets HERE (this folder), DSIM (absolute:
# $DSIM, or ../dsim), PROGS (tests/programs), MPATH (the machines' PATH, so
# that native runs look commands up the same way), UNSHARE (a new network
# namespace, as root or not) and TMP (a scratch folder removed on exit);
# defines die MESSAGE and now_ns.
HERE=$(cd "$(dirname "$0")" && pwd -P)
DSIM=${DSIM:-$HERE/../dsim}
[ -x "$DSIM" ] && [ -f "$DSIM" ] || { echo "$NAME: no dsim at $DSIM (build it, or set DSIM)" >&2; exit 1; }
DSIM=$(cd "$(dirname "$DSIM")" && pwd -P)/$(basename "$DSIM")
PROGS=$HERE/../tests/programs
MPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# dsim passes its own PATH to the [check] commands it runs on the host: the
# same PATH as the native runs', so a check's python3 is the machines' (a
# pyenv shim first in a user's PATH made every CPython check a bash script
# and a few processes more, about a fifth of an id allocator seed's CPU).
export PATH=$MPATH
if [ "$(id -u)" = 0 ]; then UNSHARE="unshare --net"; else UNSHARE="unshare --user --map-root-user --net"; fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dsim-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
die() { echo "$NAME: $*" >&2; exit 1; }
now_ns() { date +%s%N; }
