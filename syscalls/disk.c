/* Durability on a machine's disk. The upper layer of its overlay holds what
 * it wrote; a parallel "durable" tree holds each file as it last reached
 * stable storage (fsync, fdatasync, sync, syncfs). At a crash, a file whose
 * content is not durable is, as the machine's "disk" stream decides, kept,
 * rolled back to its durable state (or lost, if it never had one), or torn
 * at a 512-byte sector. Names and deletions are taken as durable. */
#include "syscalls/sys.h"
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void disk_dir(struct world *w, struct machine *m, const char *layer, char *out, size_t len)
{
    snprintf(out, len, "%s/disk/%s/%s", w->run_dir, m->name, layer);
}

static void mkdirs_for(const char *path)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
}

static int copy_file(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0) return -1;
    mkdirs_for(dst);
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    char buf[65536];
    ssize_t n = 0;
    while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) { n = -1; break; }
    close(in);
    if (out >= 0) close(out);
    return out < 0 || n < 0 ? -1 : 0;
}

/* Makes the machine file at mpath (its own path) durable as it is now. */
static void make_durable(struct world *w, struct machine *m, const char *mpath)
{
    char upper[4096], durable[4096], dir[1024];
    disk_dir(w, m, "upper0", dir, sizeof dir);
    snprintf(upper, sizeof upper, "%s%s", dir, mpath);
    disk_dir(w, m, "durable", dir, sizeof dir);
    snprintf(durable, sizeof durable, "%s%s", dir, mpath);
    struct stat st;
    if (lstat(upper, &st) == 0 && S_ISREG(st.st_mode)) copy_file(upper, durable);
}

enum sys_action sys_fsync(struct world *w, struct thread *t)
{
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/%d/fd/%d", t->tid, (int)ARG0(t));
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n > 0 && path[0] == '/') {
        path[n] = 0;
        make_durable(w, t->proc->m, path);
    }
    return SYS_PASS;
}

/* sync and syncfs: everything the machine wrote is durable now. */
static struct world *walk_world;
static struct machine *walk_machine;
static size_t walk_prefix;

static int durable_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    if (flag == FTW_F && S_ISREG(st->st_mode)) make_durable(walk_world, walk_machine, path + walk_prefix);
    return 0;
}

enum sys_action sys_sync(struct world *w, struct thread *t)
{
    char dir[1024];
    disk_dir(w, t->proc->m, "upper0", dir, sizeof dir);
    walk_world = w;
    walk_machine = t->proc->m;
    walk_prefix = strlen(dir);
    nftw(dir, durable_entry, 16, FTW_PHYS);
    return SYS_PASS;
}

/* ---- at a crash ---- */

static bool same_content(const char *a, const char *b)
{
    FILE *fa = fopen(a, "re"), *fb = fopen(b, "re");
    bool same = fa && fb;
    int ca, cb;
    while (same && (ca = getc(fa)) == (cb = getc(fb)))
        if (ca == EOF) break;
    if (same && ca != cb) same = false;
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* The first `cut` bytes of what was written, then the durable rest. */
static void tear(const char *upper, const char *durable, off_t cut)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.dsim-torn", upper);
    int in = open(durable, O_RDONLY | O_CLOEXEC);
    copy_file(upper, tmp);
    if (truncate(tmp, cut) != 0) {}
    if (in >= 0) {
        int out = open(tmp, O_WRONLY | O_APPEND | O_CLOEXEC);
        char buf[65536];
        ssize_t n;
        if (lseek(in, cut, SEEK_SET) == cut)
            while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
                if (write(out, buf, (size_t)n) != n) break;
        if (out >= 0) close(out);
        close(in);
    }
    rename(tmp, upper);
}

/* The crash walk collects the files first: each takes PRNG draws, so they
 * must be visited in name order, not the host filesystem's. */
static char **crash_files;
static size_t ncrash, capcrash;

static int collect_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    if (flag != FTW_F || !S_ISREG(st->st_mode)) return 0;
    if (ncrash == capcrash) crash_files = realloc(crash_files, (capcrash = capcrash ? 2 * capcrash : 64) * sizeof *crash_files);
    crash_files[ncrash++] = strdup(path);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void crash_file(const char *path, const struct stat *st)
{
    struct world *w = walk_world;
    struct machine *m = walk_machine;
    const char *mpath = path + walk_prefix;
    char durable[4096], dir[1024];
    disk_dir(w, m, "durable", dir, sizeof dir);
    snprintf(durable, sizeof durable, "%s%s", dir, mpath);
    struct stat dst;
    bool has_durable = stat(durable, &dst) == 0;
    if (has_durable && same_content(path, durable)) return;
    const char *what;
    switch (prng_below(&m->disk, 3)) {
    case 0:
        what = "kept";
        break;
    case 1:
        if (has_durable) { copy_file(durable, path); what = "rolled back"; }
        else { unlink(path); what = "lost"; }
        break;
    default: {
        off_t longest = st->st_size > (has_durable ? dst.st_size : 0) ? st->st_size : dst.st_size;
        off_t cut = 512 * (off_t)prng_below(&m->disk, (uint64_t)(longest / 512) + 1);
        if (cut > st->st_size) cut = st->st_size;
        tear(path, has_durable ? durable : "/dev/null", cut);
        what = "torn";
        break;
    }
    }
    trace_event(w->trace, w->now, m->name, 0, "disk: %s %s (not durable)", mpath, what);
}

void disk_crash(struct world *w, struct machine *m)
{
    char dir[1024];
    disk_dir(w, m, "upper0", dir, sizeof dir);
    walk_world = w;
    walk_machine = m;
    walk_prefix = strlen(dir);
    ncrash = 0;
    nftw(dir, collect_entry, 16, FTW_PHYS);
    if (ncrash) qsort(crash_files, ncrash, sizeof *crash_files, by_name);
    for (size_t i = 0; i < ncrash; i++) {
        struct stat st;
        if (lstat(crash_files[i], &st) == 0) crash_file(crash_files[i], &st);
        free(crash_files[i]);
    }
}
