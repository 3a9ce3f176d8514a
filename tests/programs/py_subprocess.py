#!/usr/bin/python3
"""py_subprocess: CPython's ways of starting processes.

subprocess.run with captured output, check_output of a shell pipeline, Popen
with a stdin pipe and communicate(), a non-zero return code, a child killed by
a signal, and a bare os.fork() + os.waitpid(). Every line printed is the same
natively and under dsim (no pids, no times). Exits 0 only if every result is
the expected one, so a wrong result fails the run even without a comparison.
"""
import os
import signal
import subprocess
import sys

failures = []


def check(label, got, want):
    print("%s: %r" % (label, got))
    if got != want:
        failures.append("%s: got %r, want %r" % (label, got, want))


def main():
    r = subprocess.run(["/bin/echo", "hello"], capture_output=True)
    check("run echo stdout", r.stdout, b"hello\n")
    check("run echo stderr", r.stderr, b"")
    check("run echo returncode", r.returncode, 0)

    out = subprocess.check_output("echo a b c | wc -w", shell=True)
    check("pipeline words", int(out.strip()), 3)

    p = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    data = b"".join(b"line %d\n" % i for i in range(2000))  # > one pipe buffer
    out, err = p.communicate(data)
    check("cat roundtrip length", len(out), len(data))
    check("cat roundtrip equal", out == data, True)
    check("cat returncode", p.returncode, 0)

    r = subprocess.run(["/bin/sh", "-c", "exit 3"])
    check("exit 3 returncode", r.returncode, 3)

    try:
        subprocess.check_call(["/bin/sh", "-c", "exit 3"])
        check("check_call raised", False, True)
    except subprocess.CalledProcessError as e:
        check("check_call raised returncode", e.returncode, 3)

    r = subprocess.run(["/bin/sh", "-c", "kill -TERM $$"])
    check("killed returncode", r.returncode, -signal.SIGTERM)

    r = subprocess.run(["/bin/sh", "-c", "echo to-stderr >&2"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    check("stderr merged", r.stdout, b"to-stderr\n")

    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os._exit(42)
    wpid, status = os.waitpid(pid, 0)
    check("fork waitpid pid matches", wpid == pid, True)
    check("fork WIFEXITED", os.WIFEXITED(status), True)
    check("fork WEXITSTATUS", os.WEXITSTATUS(status), 42)

    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        # The child writes to the shared stdout; the parent prints after
        # waiting, so the order is fixed.
        print("child of fork says hi")
        sys.stdout.flush()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    check("fork child exit 0", os.waitstatus_to_exitcode(status), 0)

    if failures:
        for f in failures:
            print("FAILED " + f, file=sys.stderr)
        sys.exit(1)
    print("all ok")


if __name__ == "__main__":
    main()
