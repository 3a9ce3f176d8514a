/* Tries, from inside a machine, what would reach the host if the machine
 * were not sealed, and prints what each attempt got. Every attempt is
 * harmless to the host even if it succeeded: the sysctl is written with the
 * value it already has, sysrq-trigger is only opened, the cgroup, /dev file
 * and kernel-log line carry a name the test removes or looks for.
 * Usage: sealed_probe TAG (names the files and the log line). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void show(const char *what, int r)
{
    printf("%-28s %s\n", what, r < 0 ? strerrorname_np(errno) : "ok");
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

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *tag = argv[1];
    char path[256], text[256];
    /* A sysctl, written with its own value. */
    int fd = open("/proc/sys/fs/lease-break-time", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0) close(fd);
    text[n > 0 ? n : 0] = 0;
    show("sysctl write", n > 0 ? write_file("/proc/sys/fs/lease-break-time", text) : -1);
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
    show("open /proc/1/mem", open("/proc/1/mem", O_RDWR));
    show("open /proc/1/root", open("/proc/1/root/", O_RDONLY | O_DIRECTORY));
    show("open /proc/kcore", open("/proc/kcore", O_RDONLY) >= 0 ? (int)read(open("/proc/kcore", O_RDONLY), text, 1) : -1);
    fd = open("/proc/self/uid_map", O_RDONLY);
    n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    text[n > 0 ? n : 0] = 0;
    printf("%-28s %s", "uid_map", text);
    printf("%-28s %d\n", "uid", (int)getuid());
    /* Root of its own user namespace only: no capability over what the
     * host's owns, such as its UTS namespace (made by pid 1). */
    show("sethostname", sethostname("sealed", 6));
    return 0;
}
