/* File identities: inode and device numbers agree between stat, fstat,
 * lstat, fstatat, statx and readdir; a hard link shares its file's
 * number, other files do not; st_dev/stx_dev agree; a pipe's
 * /proc/self/fd link names the inode its fstat gives. Prints the checks
 * (the same natively and under dsim); with --numbers also the numbers
 * themselves, which under dsim must be the same in every run. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int failures;

static void check(const char *what, int ok)
{
    printf("%s: %s\n", what, ok ? "ok" : "WRONG");
    failures += !ok;
}

static ino_t listed_ino(const char *dir, const char *name)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    ino_t ino = 0;
    while (d && (e = readdir(d)))
        if (!strcmp(e->d_name, name)) ino = e->d_ino;
    if (d) closedir(d);
    return ino;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 && argv[1][0] != '-' ? argv[1] : "/var/tmp/ids";
    int numbers = argc > 2 && !strcmp(argv[2], "--numbers");
    char a[4096], b[4096], c[4096];
    mkdir(dir, 0755);
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    snprintf(c, sizeof c, "%s/c", dir);
    unlink(a), unlink(b), unlink(c);
    int fd = open(a, O_CREAT | O_WRONLY, 0644);
    if (fd < 0 || write(fd, "x", 1) != 1) { perror(a); return 1; }
    if (link(a, b) != 0) { perror("link"); return 1; }
    close(open(c, O_CREAT | O_WRONLY, 0644));

    struct stat sa, sfa, sla, sat, sb, sc, sd, sroot;
    struct statx sx;
    stat(a, &sa);
    fstat(fd, &sfa);
    lstat(a, &sla);
    fstatat(AT_FDCWD, a, &sat, 0);
    stat(b, &sb);
    stat(c, &sc);
    stat(dir, &sd);
    stat("/", &sroot);
    statx(AT_FDCWD, a, 0, STATX_INO, &sx);
    check("stat = fstat = lstat = fstatat", sa.st_ino == sfa.st_ino && sa.st_ino == sla.st_ino && sa.st_ino == sat.st_ino);
    check("statx = stat", sx.stx_ino == sa.st_ino && makedev(sx.stx_dev_major, sx.stx_dev_minor) == sa.st_dev);
    check("hard link: one inode", sb.st_ino == sa.st_ino && sb.st_nlink == 2);
    check("other file: another inode", sc.st_ino != sa.st_ino && sd.st_ino != sa.st_ino);
    check("one device for the directory's files", sa.st_dev == sc.st_dev && sa.st_dev == sd.st_dev);
    check("readdir's d_ino = st_ino", listed_ino(dir, "a") == sa.st_ino && listed_ino(dir, "c") == sc.st_ino);
    check("inode numbers are not 0", sa.st_ino && sc.st_ino && sd.st_ino);
    int p[2];
    struct stat sp;
    char link[64] = "", want[64], fdpath[64];
    if (pipe(p) != 0 || fstat(p[0], &sp) != 0) { perror("pipe"); return 1; }
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", p[0]);
    if (readlink(fdpath, link, sizeof link - 1) < 0) perror("readlink");
    snprintf(want, sizeof want, "pipe:[%lu]", (unsigned long)sp.st_ino);
    check("a pipe's /proc fd link names its fstat inode", !strcmp(link, want));
    char dev[64] = "", small[16] = "", devpath[64];
    snprintf(devpath, sizeof devpath, "/dev/fd/%d", p[0]);
    if (readlink(devpath, dev, sizeof dev - 1) < 0) perror("readlink /dev/fd");
    check("and so does its /dev/fd link", !strcmp(dev, want));
    ssize_t n = readlink(fdpath, small, 9);
    size_t full = strlen(want);
    check("a link cut by a small buffer is the start of the whole one",
          n == (ssize_t)(full < 9 ? full : 9) && !strncmp(small, want, (size_t)n));
    if (numbers)
        printf("numbers: a %lu c %lu dir %lu root %lu dev %u:%u\n", (unsigned long)sa.st_ino,
               (unsigned long)sc.st_ino, (unsigned long)sd.st_ino, (unsigned long)sroot.st_ino,
               major(sa.st_dev), minor(sa.st_dev));
    close(fd);
    unlink(a), unlink(b), unlink(c);
    return failures != 0;
}
