"""File times of changes made by less common paths: a copy by
copy_file_range (coreutils cat), os.sendfile, cp (FICLONE refused, then a
copy), a write through a shared mapping, a unix socket bound to a path, a
directory removed and made again where the host has one of that name, a
pipe, and /proc. Prints "what mtime_ns" lines. Under dsim every time must
be the machine's (2025, not the host's clock), and the same in every run of
a seed. Usage: times_paths.py DIR, where DIR/t/f1 exists on the host."""
import mmap
import os
import socket
import subprocess
import sys

d = sys.argv[1]
out = []


def show(what, path, follow=True):
    st = os.stat(path) if follow else os.lstat(path)
    out.append((what, st.st_mtime_ns))


os.chdir(d)
with open("a", "w") as f:
    f.write("one\n")
subprocess.run("cat a > b_cat", shell=True, check=True)
show("copy_file_range", "b_cat")
with open("a", "rb") as src, open("b_sendfile", "wb") as dst:
    os.sendfile(dst.fileno(), src.fileno(), 0, 4)
show("sendfile", "b_sendfile")
subprocess.run(["cp", "a", "b_cp"], check=True)
show("cp", "b_cp")
with open("m", "wb") as f:
    f.write(b"\0" * 4096)
with open("m", "r+b") as f:
    mm = mmap.mmap(f.fileno(), 4096)
    mm[0:5] = b"hello"
    mm.flush()
    mm.close()
show("mmap write", "m")
s = socket.socket(socket.AF_UNIX)
s.bind("sock")
show("unix socket", "sock", follow=False)
show("its directory", ".")
subprocess.run("rm -rf t && mkdir t && echo new > t/f1", shell=True, check=True)
show("remade directory", "t")
r, w = os.pipe()
os.write(w, b"x")
out.append(("pipe", os.fstat(r).st_mtime_ns))
show("/proc/self/status", "/proc/self/status")
for what, ns in out:
    print(what, ns)
