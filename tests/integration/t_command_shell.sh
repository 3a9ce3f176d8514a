#!/bin/bash
# command_shell: a machine's command that is only a program and its words
# is exec'd by dsim itself (auto, the default), saving the shell's start;
# the program sees what it saw when /bin/sh -c ran it (always): its argv,
# working directory, environment (PWD exported); it is pid 2, init's child,
# as it was after `exec` (the shell forks a lone command). Anything
# with shell syntax, a builtin first, or a failing exec still goes through
# the shell, which says what it always said.
. "$(dirname "$0")/lib.sh"
dsim_timeout 120
show=$(build show_start)
mkdir -p "$TMP/c"
cp "$show" "$TMP/c/show_start"
cd "$TMP/c"
printf 'echo from a script without a shebang\n' >noshebang
chmod +x noshebang

# conf NAME MODE COMMAND: a one-machine config.
conf() {
    printf '[simulation]\nduration = 5s\ncommand_shell = %s\n[machine m]\ncommand = %s\nenv = EXTRA=1\n' "$2" "$3" >"$1"
}
# run CONF SEED OUT: the seed's outputs in OUT; prints its trace hash.
run() {
    rm -rf "$3"
    "$DSIM" replay "$1" "$2" --output "$3" --trace "$3.trace" >"$3.log" 2>&1
    sed -n 's/^trace hash //p' "$3.log"
}
first_exec() { gzip -dcf "$1.trace" | grep -m1 ' execve(' | sed 's/.*execve(\("[^"]*"\).*/\1/'; }
steps() { gzip -dcf "$1.trace" | grep -c '^[0-9]'; }

# Whether this host's /bin/sh forks a lone command (dash) or execs it
# (bash): what the program saw through the shell.
shpid_ppid=$(bash -c 'echo $$; /bin/sh -c "./show_start"; :' | sed -n '1p;s/^pid [0-9]* ppid //p' | tr '\n' ' ')
set -- $shpid_ppid
if [ "$1" = "$2" ]; then lone='pid 2 ppid 1'; else lone='pid 3 ppid 2'; fi
note "/bin/sh -c with a lone command: $lone through the shell"

for cmd in "./show_start a --b=c d,e" "exec ./show_start x" "show_start y"; do
    conf auto.conf auto "$cmd"
    conf always.conf always "$cmd"
    [ "$cmd" = "show_start y" ] && sed -i 's/^env = EXTRA=1$/&\nenv = PATH=\/dsim\/config:\/usr\/bin:\/bin/' auto.conf always.conf
    ha=$(run auto.conf 1 "$TMP/auto") hs=$(run always.conf 1 "$TMP/always")
    [ -n "$ha" ] && [ -n "$hs" ] || { cat "$TMP/auto.log" "$TMP/always.log" >&2; fail "$cmd: no hash"; }
    # The shell forks a lone command (dash execs only after `exec`): then
    # the program was pid 3, the shell's child; run directly it is pid 2.
    grep -v '^pid ' "$TMP/auto/seed-1/m.stdout" >"$TMP/auto.seen"
    grep -v '^pid ' "$TMP/always/seed-1/m.stdout" >"$TMP/always.seen"
    cmp -s "$TMP/auto.seen" "$TMP/always.seen" ||
        { diff "$TMP/always.seen" "$TMP/auto.seen" >&2; fail "$cmd: the program saw another start"; }
    case $cmd in
    exec*) want='pid 2 ppid 1' ;;
    *) want=$lone ;;
    esac
    grep -q "^$want\$" "$TMP/always/seed-1/m.stdout" || fail "$cmd: through the shell, not $want"
    grep -q '^env PWD=/dsim/config$' "$TMP/auto/seed-1/m.stdout" || fail "$cmd: no PWD: $(cat "$TMP/auto/seed-1/m.stdout")"
    grep -q '^pid 2 ppid 1$' "$TMP/auto/seed-1/m.stdout" || fail "$cmd: not pid 2 under init"
    [ "$(first_exec "$TMP/always")" = '"/bin/sh"' ] || fail "$cmd: always did not start the shell"
    [ "$(first_exec "$TMP/auto")" != '"/bin/sh"' ] || fail "$cmd: auto started the shell"
    sa=$(steps "$TMP/auto") ss=$(steps "$TMP/always")
    [ "$sa" -lt $((ss - 20)) ] || fail "$cmd: auto took $sa steps, always $ss"
    [ "$ha" != "$hs" ] || fail "$cmd: one hash for both modes"
    # One hash per seed, and the default is auto.
    [ "$(one_hash auto.conf 1)" = "$ha" ] || fail "$cmd: verify disagrees with replay"
    sed -i '/^command_shell/d' auto.conf
    [ "$(run auto.conf 1 "$TMP/default")" = "$ha" ] || fail "$cmd: the default is not auto"
    note "$cmd: $sa steps directly, $ss through the shell"
done
ha2=$(run auto.conf 2 "$TMP/auto2")
[ "$ha2" != "$ha" ] || fail "seeds 1 and 2 give one hash"

# What the shell runs either way: the same outputs and exit status.
for cmd in "nosuchprog x" "./nosuchprog" "./noshebang" "echo -e x" "true" "./show_start a > out; cat out" \
           'FOO=1 ./show_start' '/dsim/config'; do
    conf auto.conf auto "$cmd"
    conf always.conf always "$cmd"
    run auto.conf 1 "$TMP/auto" >/dev/null
    run always.conf 1 "$TMP/always" >/dev/null
    for f in m.stdout m.stderr; do
        cmp -s "$TMP/auto/seed-1/$f" "$TMP/always/seed-1/$f" ||
            { diff "$TMP/always/seed-1/$f" "$TMP/auto/seed-1/$f" >&2; fail "$cmd: $f differs"; }
    done
    sa=$(grep -o 'machine exit status [0-9]*' "$TMP/auto.log" | head -1)
    ss=$(grep -o 'machine exit status [0-9]*' "$TMP/always.log" | head -1)
    [ "$sa" = "$ss" ] || fail "$cmd: '$sa' directly, '$ss' by the shell"
done
grep -q 'nosuchprog: not found' "$TMP/auto/seed-1/m.stderr" 2>/dev/null || true
conf auto.conf auto "nosuchprog"
run auto.conf 1 "$TMP/auto" >/dev/null
grep -q '^/bin/sh: 1: nosuchprog: not found$' "$TMP/auto/seed-1/m.stderr" || fail "no shell message: $(cat "$TMP/auto/seed-1/m.stderr")"

printf '[simulation]\ncommand_shell = never\n[machine m]\ncommand = true\n' >bad.conf
"$DSIM" run bad.conf --seeds 1 >/dev/null 2>"$TMP/bad.err"
[ $? = 2 ] || fail "a bad command_shell was not refused with status 2"
grep -q 'bad.conf:2: bad command_shell "never" (use auto or always)' "$TMP/bad.err" || fail "bad command_shell: $(cat "$TMP/bad.err")"
note ok
