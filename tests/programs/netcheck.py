"""The Python test programs' guard against real traffic (netcheck.h is the
C programs'): the addresses of a simulated cluster are real private
addresses outside dsim, so a program that uses them refuses to run unless
`lo` is its network namespace's only interface.

Import it with bytecode writing off (sys.dont_write_bytecode = True): a
__pycache__ written next to the script would change the directory machines
list, and so the traces of later seeds."""
import sys


def require_lo_only():
    """Exit 3 unless this network namespace has only `lo` (no real network)."""
    try:
        with open("/proc/self/net/dev") as f:
            lines = f.read().splitlines()[2:]
    except OSError as e:
        print(f"netcheck: cannot read /proc/self/net/dev: {e}; refusing to run", file=sys.stderr)
        sys.exit(3)
    for line in lines:
        name = line.split(":", 1)[0].strip()
        if name != "lo":
            print(f"netcheck: network interface '{name}' present: refusing to run "
                  "(run me inside `unshare --net` or under dsim)", file=sys.stderr)
            sys.exit(3)
