#!/bin/bash
# Setting clocks and the alarm clocks (clock_set_alarm), for a machine's
# root, which has neither CAP_SYS_TIME nor CAP_WAKE_ALARM on the host:
# clock_settime and settimeofday fail as Linux orders it (EINVAL for a
# clock that cannot be set, EFAULT, EINVAL for a bad time or a CPU clock
# of no process, then EPERM), as natively without those capabilities. The
# alarm clocks depend on a real-time clock device, which hosts have or not:
# a machine has one on every host (read as their clocks, EPERM to sleep on
# or time, EINVAL for bad sleep flags; timerfd_create EPERM either way).
# Natively the alarm lines must be that (a host with an alarm-capable RTC)
# or the other kernel answer (no RTC: EINVAL to read, EOPNOTSUPP to sleep
# on or time). Both clock_reads modes; one seed, one hash.
. "$(dirname "$0")/lib.sh"
dsim_timeout
prog=$(build clock_set_alarm)
# Natively, without the two capabilities (dropped from the bounding set
# before the exec: root then has neither).
setpriv --bounding-set=-sys_time,-wake_alarm "$prog" >"$TMP/native.out" || fail "natively: $(cat "$TMP/native.out")"
[ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "natively: no ok"
grep -q '^settime realtime  *-1 EPERM$' "$TMP/native.out" || fail "natively, settime realtime is not EPERM: the premise is wrong"
want_alarm() {      # the machine's (an RTC with alarms): for both clocks
    for c in realtime_alarm boottime_alarm; do
        printf '%-44s %s\n' "alarm $c gettime" "0 -" "alarm $c getres" "0 -" "alarm $c nanosleep" "-1 EPERM" \
            "alarm $c nanosleep abstime" "-1 EPERM" "alarm $c nanosleep bad flags" "-1 EINVAL" \
            "alarm $c nanosleep bad pointer" "-1 EFAULT" "alarm $c timer_create" "-1 EPERM"
    done
}
no_rtc_alarm() {    # a host without one
    for c in realtime_alarm boottime_alarm; do
        printf '%-44s %s\n' "alarm $c gettime" "-1 EINVAL" "alarm $c getres" "-1 EINVAL" \
            "alarm $c nanosleep" "-1 EOPNOTSUPP" "alarm $c nanosleep abstime" "-1 EOPNOTSUPP" \
            "alarm $c nanosleep bad flags" "-1 EOPNOTSUPP" "alarm $c nanosleep bad pointer" "-1 EFAULT" \
            "alarm $c timer_create" "-1 EOPNOTSUPP"
    done
}
want_alarm >"$TMP/want_alarm"
no_rtc_alarm >"$TMP/no_rtc_alarm"
grep '^alarm ' "$TMP/native.out" >"$TMP/native_alarm"
if ls /sys/class/rtc/rtc*/wakealarm >/dev/null 2>&1; then
    diff "$TMP/want_alarm" "$TMP/native_alarm" >&2 || fail "natively, with an alarm RTC, the alarm clocks answer otherwise"
    note "this host has an RTC with alarms: natively as in a machine"
else
    diff "$TMP/no_rtc_alarm" "$TMP/native_alarm" >&2 || fail "natively, without an RTC, the alarm clocks answer otherwise"
    note "this host has no RTC with alarms: natively the other answer"
fi
grep -v '^alarm ' "$TMP/native.out" >"$TMP/native_rest"
for mode in page stop; do
    h=$(EXEC_OPTS="--clock-reads $mode" same_hash_twice 1 "$prog") || exit 1
    [ "$(cat "$TMP/a.rc")" = 0 ] || { cat "$TMP/exec.err" >&2; fail "$mode: exit $(cat "$TMP/a.rc")"; }
    grep -v '^alarm ' "$TMP/a.out" | diff "$TMP/native_rest" - >&2 || fail "$mode: settime answers otherwise than natively"
    grep '^alarm ' "$TMP/a.out" | diff "$TMP/want_alarm" - >&2 || fail "$mode: the alarm clocks answer otherwise"
    note "clock_reads = $mode: as natively, alarm clocks as with an RTC ($h)"
done
