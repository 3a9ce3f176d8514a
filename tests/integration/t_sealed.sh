#!/bin/bash
# A machine is sealed by the kernel, not only by dsim's handlers: its
# command runs as root in the machine's user namespace (every id mapped to
# itself; pid 1 is root there too, not on the host), with a private /dev (a
# small tmpfs of harmless devices), /sys and /proc/sys read-only, the
# host's kernel files in /proc masked, and nothing of the host reachable
# through pid 1 (its namespaces and root are the command's, it has no fd,
# signals it does not handle are not delivered). sealed_probe tries what would
# reach the host; every
# attempt is harmless to the host even if it worked (a sysctl written with
# its own value, sysrq-trigger only opened, names the test removes), and
# the test checks the host as well: no file in /dev, no cgroup, no line in
# the kernel's log, the sysctl as it was. Two machines share nothing of
# /dev. One seed gives one hash.
. "$(dirname "$0")/lib.sh"
prog=$(build sealed_probe)
tag="dsim-sealed-$$-$RANDOM"
cleanup_host() {
    rm -f "/dev/$tag" "/dev/$tag-loop"
    rmdir "/sys/fs/cgroup/$tag" 2>/dev/null
    true
}
trap 'cleanup_host; rm -rf "$TMP"' EXIT
sysctl_before=$(cat /proc/sys/fs/lease-break-time)

dsim_exec 1 "$prog" "$tag" >"$TMP/probe.out" || { cat "$TMP/exec.err" "$TMP/probe.out" >&2; fail "sealed_probe failed under dsim"; }
expect() { grep -Eq "^$1 +$2\$" "$TMP/probe.out" || { cat "$TMP/probe.out" >&2; fail "$1: expected $2"; }; }
expect "sysctl write" "(EROFS|EACCES|EPERM)"
expect "sysrq-trigger open" "(ENOENT|EROFS|EACCES|EPERM)"
# (A machine's /sys has no cgroup file system: /sys/fs/cgroup is the
# kernel's empty mount point, where every name is ENOENT.)
expect "cgroup mkdir" "(EROFS|EACCES|EPERM|ENOENT)"
expect "mknod block device" "EPERM"
expect "open /dev/loop0" "ENOENT"
expect "open /dev/vda" "ENOENT"
expect "uid" "0"
grep -Eq '^uid_map +0 +0 +4294967295$' "$TMP/probe.out" || fail "ids are not mapped to themselves"
expect "sethostname" "EPERM"        # not root over anything the host's user namespace owns
# pid 1 is root in the machine's user namespace (the command's), not on the
# host: what the command reaches through it is its own.
expect "pid 1 user namespace" "ok"
expect "pid 1 mount namespace" "ok"
expect "pid 1 pid namespace" "ok"
expect "pid 1 root" "ok"
expect "pid 1 fds" "0"
expect "pidfd_getfd pid 1 fd 0" "EBADF"
expect "kill -STOP 1" "ok"          # sent, and not delivered: init handles neither
expect "kill -KILL 1" "ok"
# init's memory: no open for writing, however named (init runs untraced);
# reading it, and writing one's own, as the kernel has them.
for what in "/proc/1/mem rw" "/proc/1/mem wronly" "/proc/1/task/1/mem rw" "/proc/self/../1/mem rw" \
    "thread-self ../../../1/mem rw" "openat /proc/1 mem rw" "/proc/self/fd/N/mem rw" "chdir /proc/1, mem rw" \
    "chdir /proc/1, ./mem rw" "chdir /proc/1, task/1/mem rw" "symlink /tmp mem rw" "creat /proc/1/mem" "O_PATH fd reopened rw" \
    "symlink other name rw" "symlink chain rw" "creat through symlink" "symlink task mem rw" "symlink relative rw" \
    "symlink to fd link rw" "short relative name rw" "via a symlinked dir rw" "via .. rw"; do
    expect "$what" "EACCES"
done
expect "/proc/1/mem rdonly" "ok"
expect "/proc/self/mem rw" "ok"
expect "symlink /tmp mem rdonly" "ok"
expect "symlink other name rdonly" "ok"
expect "symlink O_NOFOLLOW rw" "ELOOP"
expect "ns_last_pid write" "(EROFS|EACCES|EPERM)"
# The host, seen from outside.
[ ! -e "/dev/$tag" ] || fail "a file the machine made in /dev is on the host"
[ ! -e "/sys/fs/cgroup/$tag" ] || fail "the machine made a host cgroup"
[ "$(cat /proc/sys/fs/lease-break-time)" = "$sysctl_before" ] || fail "the host's sysctl changed"
if dmesg >/dev/null 2>&1; then
    ! dmesg | grep -q "$tag" || fail "the machine's line reached the host's kernel log"
fi
h=$(same_hash_twice 1 "$prog" "$tag") || exit 1

# Two machines: b finds nothing a wrote in /dev or /dev/shm.
write_conf "$TMP/two.conf" <<CONF
[simulation]
duration = 5s
[machine a]
command = touch /dev/$tag-a /dev/shm/$tag-a && ls /dev/$tag-a /dev/shm/$tag-a && sleep 2
[machine b]
start = 1s
command = ls /dev/$tag-a /dev/shm/$tag-a 2>&1; ls /dev
CONF
timeout -k 5 60 "$DSIM" replay "$TMP/two.conf" 1 --output "$TMP/out" >"$TMP/two.out" 2>&1 || { cat "$TMP/two.out" >&2; fail "two machines"; }
grep -q "^/dev/$tag-a\$" "$TMP/out/seed-1/a.stdout" || fail "machine a could not write its own /dev"
grep -q "cannot access '/dev/$tag-a'" "$TMP/out/seed-1/b.stdout" || { cat "$TMP/out/seed-1/b.stdout" >&2; fail "machine b sees a's /dev"; }
grep -q "cannot access '/dev/shm/$tag-a'" "$TMP/out/seed-1/b.stdout" || fail "machine b sees a's /dev/shm"
for node in null zero full random urandom tty hwrng ptmx pts shm; do
    grep -qx "$node" "$TMP/out/seed-1/b.stdout" || fail "/dev lacks $node"
done
[ ! -e "/dev/$tag-a" ] || fail "machine a's /dev file is on the host"
note "sealed; hash $h twice"
