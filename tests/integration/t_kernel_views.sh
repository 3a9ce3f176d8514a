#!/bin/bash
# What a machine learns of its kernel is the machine's, not the host's
# (kernel_views): its namespaces show a fresh boot's fixed numbers, in
# /proc/PID/ns links, in their stat and in the link of an open namespace fd
# (they were the host allocator's, new in every run; pid 1's are the
# command's: it is root in the machine's user namespace too); /proc/timer_list shows
# the machine's clocks and no timer; /dev/kmsg and /proc/kmsg read empty
# (and a write there does not reach the host's log); /proc/cmdline and
# /proc/sys/kernel/version are those of the kernel uname reports.
. "$(dirname "$0")/lib.sh"
prog=$(build kernel_views)
"$prog" >"$TMP/native.out" || fail "kernel_views failed natively"
for k in ns ns_fd timer_list kmsg cmdline kernel_version; do
    grep -q "^$k " "$TMP/native.out" || fail "native output lacks $k"
done
h=$(same_hash_twice 1 "$prog") || exit 1
cp "$TMP/a.out" "$TMP/s1.out"
for pid in self 1; do
    for ns in cgroup:4026531835 ipc:4026531839 mnt:4026531841 net:4026531840 pid:4026531836 \
              pid_for_children:4026531836 time:4026531834 time_for_children:4026531834 user:4026531837 \
              uts:4026531838; do
        kind=${ns%%:*} ino=${ns#*:} text=${kind%_for_children}
        grep -qx "ns $pid/$kind $text:\[$ino\] same" "$TMP/s1.out" ||
            { grep "^ns $pid/$kind " "$TMP/s1.out" >&2; fail "$pid's $kind namespace is not $ino (or stat disagrees)"; }
    done
done
grep -qx 'ns_fd net:\[4026531840\] 4026531840' "$TMP/s1.out" || fail "an open namespace fd shows the host's number"
grep -Eqx 'timer_list now at 1000[0-9]{8} nsecs' "$TMP/s1.out" || fail "timer_list: not the machine's clock"
grep -qx 'timer_list_offset   .offset:     1735689500000000000 nsecs' "$TMP/s1.out" ||
    fail "timer_list: not the machine's wall clock offset"
grep -qx 'kmsg empty' "$TMP/s1.out" || fail "/dev/kmsg shows the host's log"
grep -qx 'cmdline BOOT_IMAGE=/boot/vmlinuz-6.1.0-dsim root=/dev/vda ro quiet' "$TMP/s1.out" || fail "/proc/cmdline is the host's"
grep -qx 'kernel_version #1 SMP PREEMPT_DYNAMIC dsim' "$TMP/s1.out" || fail "/proc/sys/kernel/version is the host's"
# A write to the kernel log goes nowhere (the host's log is not the machine's).
mark="dsim-kmsg-$$-$RANDOM"
dsim_exec 1 /bin/sh -c "echo $mark >/dev/kmsg; cat /proc/kmsg" >/dev/null 2>&1 || fail "writing /dev/kmsg failed"
if dmesg >/dev/null 2>&1; then
    dmesg | grep -q "$mark" && fail "a machine wrote into the host's kernel log"
fi
note "fixed namespace numbers, the machine's timer list, no host kernel log; hash $h"
