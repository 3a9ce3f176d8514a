/* Reads from outside the simulation, noted in a trace for dsim verify
 * (docs/design.md §9, "Nondeterminism explained"). At the exit of an open
 * made while a trace file is written, dsim looks at what the new fd
 * reaches; if it is not the machine's own (its disk's upper layer, dsim's
 * fixed files, the pinned devices), an unhashed note says what it was:
 * a host file with its size, times, inode and (small files) content hash,
 * a /proc or /sys file dsim does not virtualize, a device. A stat of a
 * host file (stat.c) is noted too, with the metadata the kernel gave. Two
 * runs of a seed that read a file which changed between them then show
 * it. */
#include "syscalls/sys.h"
#include "disk/durable.h"
#include "trace/tracecmp.h"
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xxhash.h>

#define HASHED_MAX 65536        /* a host file's content is hashed up to this size */

/* /dev/null, zero, full, random, urandom: nothing of the host's in them
 * (the random ones are served from the seed, syscalls/rw.c). */
static bool pinned_device(dev_t rdev)
{
    unsigned ma = major(rdev), mi = minor(rdev);
    return ma == 1 && (mi == 3 || mi == 5 || mi == 7 || mi == 8 || mi == 9);
}

/* "host file, N bytes, mtime S.N, ctime S.N, inode I"; returns its length. */
static int host_metadata(const struct stat *st, char *desc, size_t len)
{
    return snprintf(desc, len, "host %s, %lld bytes, mtime %lld.%09ld, ctime %lld.%09ld, inode %llu",
                    S_ISDIR(st->st_mode) ? "directory" : "file", (long long)st->st_size,
                    (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec,
                    st->st_ctim.tv_nsec, (unsigned long long)st->st_ino);
}

static void host_file(int copy, const struct stat *st, char *desc, size_t len)
{
    int n = host_metadata(st, desc, len);
    if (!S_ISREG(st->st_mode) || st->st_size > HASHED_MAX || n < 0 || (size_t)n >= len) return;
    static char buf[HASHED_MAX];
    ssize_t got = pread(copy, buf, sizeof buf, 0);    /* the copy's position is the tracee's: pread keeps it */
    if (got >= 0)
        snprintf(desc + n, len - (size_t)n, ", xxh3 %016llx", (unsigned long long)XXH3_64bits(buf, (size_t)got));
}

/* What fd reaches, if it is outside the machine: false for its own. */
static bool describe(struct world *w, struct machine *m, int copy, const struct stat *st, const char *mpath,
                     char *desc, size_t len)
{
    if (st->st_dev == w->host_devs[0] || st->st_dev == w->host_devs[3])
        return false;       /* dsim's fixed files, in the run directory or the sweep's */
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
        if (pinned_device(st->st_rdev)) return false;
        snprintf(desc, len, "%s device %u:%u, not virtualized by dsim", S_ISCHR(st->st_mode) ? "character" : "block",
                 major(st->st_rdev), minor(st->st_rdev));
        return true;
    }
    if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)) return false;
    struct statfs fs;
    if (fstatfs(copy, &fs) != 0) return false;
    char upath[4096];
    struct stat ust;
    switch (fs.f_type) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
        if (!S_ISREG(st->st_mode)) return false;           /* listings of pids and fds are the machine's */
        snprintf(desc, len, "a %s file dsim does not virtualize", fs.f_type == PROC_SUPER_MAGIC ? "/proc" : "/sys");
        return true;
    case OVERLAYFS_SUPER_MAGIC:     /* in the upper layer: written (or copied up) by the machine */
        if (disk_upper(w, m, mpath, upath, sizeof upath) && lstat(upath, &ust) == 0) return false;
        break;
    case TMPFS_MAGIC:               /* its own /dev/shm, the empty runs directory */
    case DEVPTS_SUPER_MAGIC:
        return false;
    default:                        /* a host file system bound in (overlayfs refused it) */
        break;
    }
    host_file(copy, st, desc, len);
    return true;
}

void outside_open_noted(struct world *w, struct thread *t, long fd)
{
    if (fd < 0) return;
    char link[64], mpath[4096], desc[512], note[4 * 4096 + 700];
    snprintf(link, sizeof link, "/proc/%d/fd/%ld", t->tid, fd);
    ssize_t n = readlink(link, mpath, sizeof mpath - 1);
    if (n <= 0) return;
    mpath[n] = 0;
    struct stat st;
    int copy = fd_probe(w, t, (int)fd, &st);
    if (copy < 0) return;
    if (describe(w, t->proc->m, copy, &st, mpath, desc, sizeof desc))
        trace_note(w->trace, outside_note_format(note, sizeof note, t->proc->m->name, t->vtid, mpath, desc));
    close(copy);
}

void outside_stat_note(struct world *w, struct thread *t, const char *path, const struct stat *st)
{
    char desc[512], note[4 * 4096 + 700];
    int n = host_metadata(st, desc, sizeof desc);
    if (n > 0 && (size_t)n < sizeof desc) snprintf(desc + n, sizeof desc - (size_t)n, " (stat)");
    trace_note(w->trace, outside_note_format(note, sizeof note, t->proc->m->name, t->vtid, path, desc));
}
