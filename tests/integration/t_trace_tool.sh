#!/bin/bash
# dsim trace filters a written trace by machine, thread, syscall and time
# window; every line it prints is a line of the file. --trace notes the
# result of each call the kernel ran (not hashed), and --stacks each call's
# stack, without changing the hash.
. "$(dirname "$0")/lib.sh"
prog=$(build race_counter)
write_conf "$TMP/c.conf" <<CONF
[machine counter]
command = exec $prog
[machine idle]
command = sleep 1
CONF
timeout -k 5 60 "$DSIM" replay "$TMP/c.conf" 3 --trace "$TMP/t.gz" >/dev/null
gzip -t "$TMP/t.gz" || fail "the trace is not gzip-compressed"
gzip -dc "$TMP/t.gz" >"$TMP/t.txt"
[ -s "$TMP/t.txt" ] || fail "no trace"
events() { grep -v '^  |'; }      # notes (results, stacks) go with their event
t=$(timeout -k 5 60 "$DSIM" trace "$TMP/t.gz" --machine idle | events | awk '{print $2}' | sort -u)
[ "$t" = idle ] || fail "--machine idle printed machines: $t"
n=$(timeout -k 5 60 "$DSIM" trace "$TMP/t.gz" --syscall getppid | events | grep -vc ' getppid(')
[ "$n" = 0 ] || fail "--syscall getppid printed $n other lines"
[ "$(timeout -k 5 60 "$DSIM" trace "$TMP/t.gz" --syscall getppid | events | wc -l)" -gt 10 ] || fail "too few getppid lines"
# --trace notes the result of each call the kernel ran after its event.
timeout -k 5 60 "$DSIM" trace "$TMP/t.gz" --syscall getppid | head -n 2 | tail -n 1 | grep -Eqx '  \| = [0-9]+' ||
    fail "no result note after a getppid: $(timeout -k 5 60 "$DSIM" trace "$TMP/t.gz" --syscall getppid | head -n 2)"
timeout -k 5 60 "$DSIM" trace "$TMP/t.gz" --thread 3 --from 1ms --to 2ms | events >"$TMP/w.txt"
awk '$3 != 3 { exit 1 } { split($1, t, "."); ns = t[1] * 1e9 + t[2]; if (ns < 1e6 || ns > 2e6) exit 1 }' "$TMP/w.txt" ||
    fail "--thread/--from/--to printed lines outside the filter"
grep -vxFf "$TMP/t.txt" "$TMP/w.txt" && fail "printed a line that is not in the trace"
[ "$(timeout -k 5 60 "$DSIM" trace "$TMP/t.gz" | wc -l)" = "$(wc -l <"$TMP/t.txt")" ] || fail "no filter must print everything"
timeout -k 5 60 "$DSIM" trace "$TMP/t.gz" --from bogus >/dev/null 2>&1; [ $? = 2 ] || fail "a bad --from is not a usage error"
# replay --stacks notes each syscall's stack after its event, without
# changing the trace hash; dsim trace keeps a note with its event.
plain=$(timeout -k 5 60 "$DSIM" replay "$TMP/c.conf" 3 | sed -n 's/^trace hash //p')
stacked=$(timeout -k 5 60 "$DSIM" replay "$TMP/c.conf" 3 --trace "$TMP/s.gz" --stacks counter | sed -n 's/^trace hash //p')
[ -n "$plain" ] && [ "$plain" = "$stacked" ] || fail "--stacks changed the hash: $plain vs $stacked"
timeout -k 5 60 "$DSIM" trace "$TMP/s.gz" --machine counter --syscall getppid --thread 3 | head -n 2 >"$TMP/n.txt"
grep -q "^  | stack: getppid+0x[0-9a-f]* (libc.so.6) < worker+" "$TMP/n.txt" || fail "no stack note after a getppid: $(cat "$TMP/n.txt")"
[ "$(timeout -k 5 60 "$DSIM" trace "$TMP/s.gz" --machine idle | grep -c '^  | stack')" = 0 ] || fail "machine idle got stacks it was not asked for"
