/* Directory listings in name order. The kernel's getdents order depends on
 * the filesystem (ext4 hashes names with a per-filesystem seed), so the same
 * files listed on another host would come out in another order. dsim lists
 * the directory itself, sorts by name, and serves entries from the index
 * kept in the open file's own position (so lseek/rewinddir still work).
 * The machine's /tmp and /var/tmp list only what the machine put there. */
#include "base/xalloc.h"
#include "syscalls/sys.h"
#include "disk/durable.h"
#include "world/tracer.h"
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

struct dirent64_hdr {          /* struct linux_dirent64 without its name */
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
} __attribute__((packed));

struct entry { uint64_t ino; unsigned char type; char *name; };

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* All entries of the directory open as `copy`, sorted unless `sort` is
 * false; -errno on failure. */
static long list_entries(int copy, bool sort, struct entry **out)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", copy);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);   /* its own position */
    if (fd < 0) return -errno;
    size_t n = 0, cap = 64;
    struct entry *v = malloc(cap * sizeof *v);
    char buf[32768];
    long got;
    while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < got;) {
            struct dirent64_hdr *h = (struct dirent64_hdr *)(buf + off);
            GROW(v, n, cap);
            v[n++] = (struct entry){ h->d_ino, h->d_type, strdup(buf + off + sizeof *h) };
            off += h->d_reclen;
        }
    }
    close(fd);
    if (sort) qsort(v, n, sizeof *v, by_name);
    *out = v;
    return got < 0 ? -errno : (long)n;
}

static void free_entries(struct entry *v, long n)
{
    for (long i = 0; i < n; i++) free(v[i].name);
    free(v);
}

/* The machine's /tmp or /var/tmp (machine_tmp_dirs) that st is, or -1. */
static int tmp_dir(struct machine *m, const struct stat *st)
{
    if (!m->tmp_known) {
        for (int i = 0; i < MACHINE_TMP_DIRS; i++) {
            char path[64];
            struct stat ts;
            snprintf(path, sizeof path, "/proc/%d/root%s", (int)m->root_pid, machine_tmp_dirs[i]);
            bool ok = stat(path, &ts) == 0;
            m->tmp_dev[i] = ok ? ts.st_dev : 0;
            m->tmp_ino[i] = ok ? ts.st_ino : 0;
        }
        m->tmp_known = true;
    }
    for (int i = 0; i < MACHINE_TMP_DIRS; i++)
        if (m->tmp_ino[i] && st->st_ino == m->tmp_ino[i] && st->st_dev == m->tmp_dev[i]) return i;
    return -1;
}

/* Whether a listing of the machine's /tmp or /var/tmp shows an entry: the
 * host's /tmp holds what every process of the host makes there, other
 * dsim runs and tests included, which come and go while a seed runs. So
 * the machine sees, as on a fresh machine, what it made or changed there
 * (its disk's upper layer has it), and the way to its working directory;
 * host files stay reachable by name. */
static bool tmp_shows(struct world *w, struct machine *m, int which, const char *name)
{
    if (!strcmp(name, ".") || !strcmp(name, "..")) return true;
    char path[4096], upath[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", machine_tmp_dirs[which], name);
    if (disk_upper(w, m, path, upath, sizeof upath) && lstat(upath, &st) == 0) return true;
    size_t n = strlen(path);
    const char *dir = w->conf->dir;
    return dir && !strncmp(dir, path, n) && (dir[n] == 0 || dir[n] == '/');
}

enum sys_action sys_getdents64(struct world *w, struct thread *t)
{
    int copy = fd_copy(w, t, (int)ARG0(t));
    struct stat st;
    if (copy < 0) return SYS_PASS;                      /* EBADF from the kernel */
    if (fstat(copy, &st) != 0 || !S_ISDIR(st.st_mode)) { close(copy); return SYS_PASS; }
    struct entry *v;
    /* /proc lists in its own fixed order (fds and pids by number), as
     * natively: that order is the kernel's, not a file system's. */
    struct statfs sf;
    bool proc = fstatfs(copy, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
    long n = list_entries(copy, !proc, &v);
    if (n < 0) { close(copy); return emulate(t, n); }
    int tmp = proc ? -1 : tmp_dir(t->proc->m, &st);
    if (tmp >= 0) {
        long kept = 0;
        for (long i = 0; i < n; i++) {
            if (tmp_shows(w, t->proc->m, tmp, v[i].name)) v[kept++] = v[i];
            else free(v[i].name);
        }
        n = kept;
    }
    off_t pos = lseek(copy, 0, SEEK_CUR);
    size_t count = (size_t)ARG2(t), used = 0;
    char *out = malloc(count ? count : 1);
    long i = pos < 0 ? 0 : (long)pos;
    for (; i < n; i++) {
        size_t namelen = strlen(v[i].name) + 1;
        size_t reclen = (sizeof(struct dirent64_hdr) + namelen + 7) & ~(size_t)7;
        if (used + reclen > count) break;
        /* The machine's inode numbers, as its stat results give (stat.c). */
        uint64_t ino = idmap_ino(&t->proc->m->ids, machine_dev_key(t->proc->m, st.st_dev), v[i].ino);
        struct dirent64_hdr h = { ino, i + 1, (unsigned short)reclen, v[i].type };
        memset(out + used, 0, reclen);
        memcpy(out + used, &h, sizeof h);
        memcpy(out + used + sizeof h, v[i].name, namelen);
        used += reclen;
    }
    long result = (long)used;
    if (used == 0 && i < n) result = -EINVAL;                /* buffer too small */
    else if (used && mem_write(t->tid, ARG1(t), out, used)) result = -EFAULT;
    else lseek(copy, i, SEEK_SET);
    free(out);
    free_entries(v, n);
    close(copy);
    return emulate(t, result);
}
