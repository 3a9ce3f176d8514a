/* Tries, from inside a machine, what would reach the host if the machine
 * were not sealed, and prints what each attempt got. Every attempt is
 * harmless to the host even if it succeeded: the sysctl is written with the
 * value it already has, sysrq-trigger is only opened, the cgroup, /dev file
 * and kernel-log line carry a name the test removes or looks for.
 * Usage: sealed_probe TAG (names the files and the log line). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void show(const char *what, int r)
{
    printf("%-28s %s\n", what, r < 0 ? strerrorname_np(errno) : "ok");
}

/* 0 if the two namespace links name the same namespace. */
static int same_link(const char *a, const char *b)
{
    char la[128] = "", lb[128] = "";
    if (readlink(a, la, sizeof la - 1) < 0 || readlink(b, lb, sizeof lb - 1) < 0) return -1;
    if (strcmp(la, lb)) { errno = EXDEV; return -1; }
    return 0;
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int r = write(fd, text, strlen(text)) < 0 ? -1 : 0;
    int e = errno;
    close(fd);
    errno = e;
    return r;
}

/* Writes a file's own text back into it. */
static int write_same(const char *path)
{
    char text[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0) close(fd);
    if (n <= 0) return -1;
    text[n] = 0;
    return write_file(path, text);
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *tag = argv[1];
    char path[256], text[256];
    int fd;
    ssize_t n;
    /* A sysctl, written with its own value. */
    show("sysctl write", write_same("/proc/sys/fs/lease-break-time"));
    fd = open("/proc/sysrq-trigger", O_WRONLY);
    show("sysrq-trigger open", fd);
    if (fd >= 0) close(fd);
    snprintf(path, sizeof path, "/sys/fs/cgroup/%s", tag);
    show("cgroup mkdir", mkdir(path, 0755));
    snprintf(text, sizeof text, "<6>%s\n", tag);
    show("kmsg write", write_file("/dev/kmsg", text));
    snprintf(path, sizeof path, "/dev/%s", tag);
    fd = open(path, O_WRONLY | O_CREAT, 0644);
    show("dev file create", fd);
    if (fd >= 0) close(fd);
    snprintf(path, sizeof path, "/dev/%s-loop", tag);
    show("mknod block device", mknod(path, S_IFBLK | 0600, makedev(7, 0)));
    show("open /dev/loop0", open("/dev/loop0", O_RDWR));
    show("open /dev/vda", open("/dev/vda", O_RDONLY));
    /* pid 1 is root in the machine's user namespace, as the command is:
     * the command reaches it (its /proc files, a pidfd), and finds there
     * nothing it has not got: its own namespaces and root, and no fd (init
     * closes even 0-2 at its exec). */
    show("pid 1 user namespace", same_link("/proc/1/ns/user", "/proc/self/ns/user"));
    show("pid 1 mount namespace", same_link("/proc/1/ns/mnt", "/proc/self/ns/mnt"));
    show("pid 1 pid namespace", same_link("/proc/1/ns/pid", "/proc/self/ns/pid"));
    struct stat root, init_root;
    show("pid 1 root", stat("/", &root) != 0 || stat("/proc/1/root/", &init_root) != 0 ? -1
                       : root.st_dev == init_root.st_dev && root.st_ino == init_root.st_ino ? 0 : (errno = EXDEV, -1));
    int nfds = 0;
    DIR *d = opendir("/proc/1/fd");
    for (struct dirent *e; d && (e = readdir(d));) nfds += e->d_name[0] != '.';
    printf("%-28s %d\n", "pid 1 fds", d ? nfds : -1);
    if (d) closedir(d);
    int pidfd = (int)syscall(SYS_pidfd_open, 1, 0);
    show("pidfd_getfd pid 1 fd 0", pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, 0, 0));
    /* Signals from its own namespace that init does not handle are not
     * delivered (a delivered SIGKILL would end the machine, and this
     * probe with it). */
    show("kill -STOP 1", kill(1, SIGSTOP));
    show("kill -KILL 1", kill(1, SIGKILL));
    /* init is not traced: code written into its memory would run outside
     * the simulation. Its root could (root in the same user namespace), so
     * dsim refuses every open of init's mem for writing, however named,
     * with the EACCES the machine got before the owned layout; reading it,
     * and writing the machine's own mem, stay as the kernel has them. */
    show("/proc/1/mem rw", open("/proc/1/mem", O_RDWR));
    show("/proc/1/mem wronly", open("/proc/1/mem", O_WRONLY));
    show("/proc/1/task/1/mem rw", open("/proc/1/task/1/mem", O_RDWR));
    show("/proc/self/../1/mem rw", open("/proc/self/../1/mem", O_RDWR));
    show("thread-self ../../../1/mem rw", open("/proc/thread-self/../../../1/mem", O_RDWR));
    int init_dir = open("/proc/1", O_RDONLY | O_DIRECTORY);
    show("openat /proc/1 mem rw", init_dir < 0 ? -1 : openat(init_dir, "mem", O_RDWR));
    snprintf(path, sizeof path, "/proc/self/fd/%d/mem", init_dir);
    show("/proc/self/fd/N/mem rw", open(path, O_RDWR));
    int here = open(".", O_RDONLY | O_DIRECTORY);
    show("chdir /proc/1, mem rw", chdir("/proc/1") < 0 ? -1 : open("mem", O_RDWR));
    show("chdir /proc/1, ./mem rw", open("./mem", O_RDWR));
    show("chdir /proc/1, task/1/mem rw", open("task/1/mem", O_RDWR));
    if (here >= 0 && fchdir(here) == 0) close(here);
    snprintf(path, sizeof path, "/tmp/%s", tag);
    snprintf(text, sizeof text, "/tmp/%s/mem", tag);
    show("symlink /tmp mem rw", mkdir(path, 0755) < 0 || symlink("/proc/1/mem", text) < 0 ? -1 : open(text, O_RDWR));
    show("creat /proc/1/mem", creat("/proc/1/mem", 0600));
    int opath = open("/proc/1/mem", O_PATH);
    snprintf(path, sizeof path, "/proc/self/fd/%d", opath);
    show("O_PATH fd reopened rw", opath < 0 ? -1 : open(path, O_RDWR));
    snprintf(path, sizeof path, "/tmp/%s", tag);
    show("/proc/1/mem rdonly", open("/proc/1/mem", O_RDONLY));
    show("/proc/self/mem rw", open("/proc/self/mem", O_RDWR));
    show("symlink /tmp mem rdonly", open(text, O_RDONLY));
    unlink(text);
    /* Under another name: a symlink, a chain of two, one to the task's
     * file, one relative, one to an O_PATH fd's link; creat through one. */
    char other[600], second[600];
    snprintf(other, sizeof other, "/tmp/%s/x", tag);
    snprintf(second, sizeof second, "/tmp/%s/y", tag);
    show("symlink other name rw", symlink("/proc/1/mem", other) < 0 ? -1 : open(other, O_RDWR));
    show("symlink chain rw", symlink(other, second) < 0 ? -1 : open(second, O_WRONLY));
    show("creat through symlink", creat(other, 0600));
    unlink(second);
    unlink(other);
    show("symlink task mem rw", symlink("/proc/1/task/1/mem", other) < 0 ? -1 : open(other, O_RDWR));
    unlink(other);
    show("symlink relative rw", symlink("../../proc/1/mem", other) < 0 ? -1 : open(other, O_RDWR));
    unlink(other);
    char fdlink[64];
    snprintf(fdlink, sizeof fdlink, "/proc/self/fd/%d", opath);
    show("symlink to fd link rw", opath < 0 || symlink(fdlink, other) < 0 ? -1 : open(other, O_RDWR));
    show("symlink other name rdonly", open(other, O_RDONLY));
    show("symlink O_NOFOLLOW rw", open(other, O_RDWR | O_NOFOLLOW));
    /* Paths the quick look leaves to the walk: a symlinked directory on
     * the way, and "..". */
    char dir[600], ldir[600], via[700];
    snprintf(dir, sizeof dir, "/tmp/%s/d", tag);
    snprintf(ldir, sizeof ldir, "/tmp/%s/ld", tag);
    snprintf(via, sizeof via, "%s/x", dir);
    bool made = mkdir(dir, 0755) == 0 && symlink("d", ldir) == 0 && symlink("/proc/1/mem", via) == 0;
    snprintf(via, sizeof via, "%s/x", ldir);
    show("via a symlinked dir rw", made ? open(via, O_RDWR) : -1);
    snprintf(via, sizeof via, "%s/../d/x", dir);
    show("via .. rw", made ? open(via, O_RDWR) : -1);
    snprintf(via, sizeof via, "%s/x", dir);
    unlink(via);
    unlink(ldir);
    rmdir(dir);
    int back = open(".", O_PATH | O_DIRECTORY);
    show("short relative name rw", chdir(path) < 0 ? -1 : open("x", O_RDWR));
    if (back >= 0 && fchdir(back) == 0) close(back);
    unlink(other);
    rmdir(path);
    /* The machine's next-pid cursor (its pid namespace's): dsim's alone. */
    show("ns_last_pid write", write_same("/proc/sys/kernel/ns_last_pid"));
    show("open /proc/kcore", open("/proc/kcore", O_RDONLY) >= 0 ? (int)read(open("/proc/kcore", O_RDONLY), text, 1) : -1);
    fd = open("/proc/self/uid_map", O_RDONLY);
    n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    text[n > 0 ? n : 0] = 0;
    printf("%-28s %s", "uid_map", text);
    printf("%-28s %d\n", "uid", (int)getuid());
    /* Root of the machine's user namespace only: no capability over what
     * the host's owns, such as its UTS namespace (made by dsim). */
    show("sethostname", sethostname("sealed", 6));
    return 0;
}
