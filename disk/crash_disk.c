/* A machine's disk after a crash: what was durable stays; of the rest, the
 * name operations keep a prefix in the order they happened (a journal
 * commits in order) and each file's content is kept, rolled back to its
 * durable state, or torn at a 512-byte sector, as the machine's disk
 * stream decides (or as `dsim crash-states` prescribes). */
#include "disk/durable.h"
#include "disk/confined.h"
#include "base/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xxhash.h>

/* One decision among n. */
static unsigned choose(struct world *w, struct machine *m, unsigned n)
{
    struct crash_pick *p = w->pick;
    if (!p || w->ncrashes != p->crash) return (unsigned)prng_below(&m->disk, n);
    size_t i = p->nused;
    unsigned c = i < p->nchoices ? p->choices[i] : p->sampler ? (unsigned)prng_below(p->sampler, n) : 0;
    if (c >= n) c = n - 1;
    if (i < CRASH_PICK_MAX) {
        p->used[i] = c;
        p->arity[i] = n;
        p->nused++;
    }
    return c;
}

static void note(struct world *w, struct machine *m, const char *fmt, ...)
{
    char text[8300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    trace_event(w->trace, w->now, m->name, 0, "disk: %s", text);
    size_t used = strlen(m->crash_damage);
    bool damaged = strstr(text, " torn at ") || strstr(text, " rolled back (") || strstr(text, " lost (");
    if (damaged && used + strlen(text) + 2 < sizeof m->crash_damage)
        snprintf(m->crash_damage + used, sizeof m->crash_damage - used, "%s\n", text);
    struct crash_pick *p = w->pick;
    if (p && w->ncrashes == p->crash) {
        size_t n = strlen(p->desc);
        snprintf(p->desc + n, sizeof p->desc - n, "%s%s", n ? "; " : "", text);
    }
}

/* ---- name operations ---- */

static void undo(struct world *w, struct machine *m, const struct name_op *op)
{
    char u0[4096], u1[4096];
    disk_upper(w, m, op->path[0], u0, sizeof u0);
    if (op->path[1]) disk_upper(w, m, op->path[1], u1, sizeof u1);
    switch (op->kind) {
    case NOP_RENAME:
        disk_remove_tree(u0);       /* nothing, or the whiteout the rename left */
        cf_rename(u1, u0, 0);
        disk_restore_prior(w, m, op, 1, u1);
        break;
    case NOP_EXCHANGE:
        cf_rename(u0, u1, RENAME_EXCHANGE);
        break;
    default:
        disk_remove_tree(u0);
        disk_restore_prior(w, m, op, 0, u0);
        break;
    }
    if (op->path[1]) note(w, m, "%s %s -> %s undone (not durable)", name_op_verb(op->kind), op->path[0], op->path[1]);
    else note(w, m, "%s %s undone (not durable)", name_op_verb(op->kind), op->path[0]);
}

static void crash_names(struct world *w, struct machine *m)
{
    struct oplog *l = &m->names;
    if (!l->n) return;
    size_t keep = choose(w, m, (unsigned)(l->n > 100000 ? 100000 : l->n) + 1);
    note(w, m, "%zu of %zu name operations kept", keep, l->n);
    for (size_t i = l->n; i-- > keep;) undo(w, m, &l->ops[i]);
}

/* ---- the files ---- */

struct entry {
    char *mpath, *upath;
    struct stat st;
};
static struct entry *entries;
static size_t nentries, capentries;

static void collect(const char *upath, const char *mpath, const struct stat *st, void *arg)
{
    (void)arg;
    GROW(entries, nentries, capentries);
    entries[nentries++] = (struct entry){ strdup(mpath), strdup(upath), *st };
}

static int by_mpath(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->mpath, ((const struct entry *)b)->mpath);
}

/* Every entry of the machine's upper layers, in machine-path order: each
 * takes draws, so no host's directory order may decide which. */
static void collect_all(struct world *w, struct machine *m)
{
    for (size_t i = 0; i < nentries; i++) {
        free(entries[i].mpath);
        free(entries[i].upath);
    }
    nentries = 0;
    disk_walk_layers(w, m, collect, NULL);
    if (nentries) qsort(entries, nentries, sizeof *entries, by_mpath);
}

/* A machine's file (confined), or a host file by its own name (read only). */
static FILE *open_read(const char *path)
{
    int fd = cf_open(path, O_RDONLY, 0);
    if (fd < 0 && errno == EXDEV) fd = open(path, O_RDONLY | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f && fd >= 0) close(fd);
    return f;
}

static bool same_content(const char *a, const char *b)
{
    FILE *fa = open_read(a), *fb = open_read(b);
    bool same = fa && fb;
    static char ba[65536], bb[65536];
    while (same) {
        size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);
        same = na == nb && !memcmp(ba, bb, na);
        if (na < sizeof ba) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* The first `cut` bytes of what was written, then the durable rest; the
 * file keeps its inode. */
static void tear(const char *upath, const char *durable, off_t cut)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.dsim-torn", upath);
    disk_copy_file(upath, tmp);
    if (cf_truncate(tmp, cut) != 0) {}
    FILE *in = open_read(durable);
    int out = cf_open(tmp, O_WRONLY | O_APPEND, 0);
    char buf[65536];
    size_t n;
    if (in && out >= 0 && fseeko(in, cut, SEEK_SET) == 0)
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            if (write(out, buf, n) != (ssize_t)n) break;
    if (in) fclose(in);
    if (out >= 0) close(out);
    disk_copy_file(tmp, upath);
    cf_unlink(tmp);
}

/* The file's durable content: its record, else (never synced since the
 * last crash) the lower layer's file it was copied from, else nothing. */
/* rec is where the durable content is recorded (on the disk), always;
 * the source returned may be the lower layer's file on the host (in host,
 * read only), never written. */
static const char *durable_source(struct world *w, struct machine *m, const struct entry *e, char *rec, size_t len,
                                  char *host, size_t hostlen)
{
    struct stat st;
    disk_content_path(w, m, e->upath, rec, len);
    if (cf_lstat(rec, &st) == 0) return rec;
    const char *lower = disk_host_path(w, e->mpath, host, hostlen);
    if (stat(lower, &st) == 0 && S_ISREG(st.st_mode)) return lower;
    return "/dev/null";
}

static void crash_file(struct world *w, struct machine *m, const struct entry *e)
{
    char rec[4096], host[4096];
    const char *durable = durable_source(w, m, e, rec, sizeof rec, host, sizeof host);
    if (same_content(e->upath, durable)) return;
    struct stat dst;
    off_t dsize = (cf_lstat(durable, &dst) == 0 || (errno == EXDEV && stat(durable, &dst) == 0)) ? dst.st_size : 0;
    switch (choose(w, m, 3)) {
    case 0:
        note(w, m, "%s kept (not durable)", e->mpath);
        break;
    case 1:
        disk_copy_file(durable, e->upath);
        note(w, m, "%s %s (not durable)", e->mpath, dsize ? "rolled back" : "lost");
        break;
    default: {
        off_t longest = e->st.st_size > dsize ? e->st.st_size : dsize;
        off_t cut = 512 * (off_t)choose(w, m, (unsigned)(longest / 512) + 1);
        if (cut > e->st.st_size) cut = e->st.st_size;
        tear(e->upath, durable, cut);
        note(w, m, "%s torn at %lld (not durable)", e->mpath, (long long)cut);
        break;
    }
    }
    disk_copy_file(e->upath, rec);      /* what survived is durable now */
    struct timespec times[2] = { e->st.st_atim, e->st.st_mtim };
    cf_utimens(e->upath, times);   /* the crash's own writes leave no host time */
}

static bool is_whiteout(const struct stat *st) { return S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0); }

/* Records of files that are gone would mislead a file given the same inode. */
static void prune_records(struct world *w, struct machine *m)
{
    char dir[1024], path[2048];
    disk_content_dir(w, m, dir, sizeof dir);
    DIR *d = cf_opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        ino_t ino = (ino_t)strtoull(e->d_name, NULL, 10);
        bool live = false;
        for (size_t i = 0; i < nentries && !live; i++) live = S_ISREG(entries[i].st.st_mode) && entries[i].st.st_ino == ino;
        if (live) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        cf_unlink(path);
    }
    if (d) closedir(d);
}

/* A fingerprint of the disk a crash left: names, kinds and contents. */
static void hash_disk(struct world *w, struct machine *m)
{
    XXH3_state_t *s = XXH3_createState();
    XXH3_128bits_reset(s);
    collect_all(w, m);
    for (size_t i = 0; i < nentries; i++) {
        const struct entry *e = &entries[i];
        XXH3_128bits_update(s, e->mpath, strlen(e->mpath) + 1);
        char kind = is_whiteout(&e->st) ? 'w' : S_ISDIR(e->st.st_mode) ? 'd' : S_ISREG(e->st.st_mode) ? 'f' : 'o';
        XXH3_128bits_update(s, &kind, 1);
        char buf[65536];
        ssize_t n;
        if (S_ISLNK(e->st.st_mode) && (n = cf_readlink(e->upath, buf, sizeof buf)) > 0) XXH3_128bits_update(s, buf, (size_t)n);
        int fd = S_ISREG(e->st.st_mode) ? cf_open(e->upath, O_RDONLY, 0) : -1;
        while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0) XXH3_128bits_update(s, buf, (size_t)n);
        if (fd >= 0) close(fd);
    }
    XXH128_hash_t h = XXH3_128bits_digest(s);
    XXH3_freeState(s);
    w->pick->disk_hash[0] = h.high64;
    w->pick->disk_hash[1] = h.low64;
    w->pick->reached = true;
    for (size_t i = 0; i < w->pick->nseen; i++)
        if (w->pick->seen[i][0] == h.high64 && w->pick->seen[i][1] == h.low64) {
            w->pick->duplicate = true;
            world_fail(w, OUT_INTERNAL, "this crash left a disk already explored");
        }
}

void disk_crash(struct world *w, struct machine *m)
{
    w->ncrashes++;
    struct crash_pick *p = w->pick;
    if (p && !p->crash && p->match_machine && !strcmp(p->match_machine, m->name) && w->now >= p->match_at)
        p->crash = w->ncrashes;
    crash_names(w, m);
    oplog_all_synced(&m->names);        /* whatever the crash left is on disk now */
    void *mw[2] = { m, w };
    oplog_compact(&m->names, disk_drop_op, mw);
    char grave[1024];
    disk_dir(w, m, "grave", grave, sizeof grave);
    disk_remove_tree(grave);

    collect_all(w, m);
    for (size_t i = 0; i < nentries; i++) {
        const struct entry *e = &entries[i];
        bool seen = false;      /* a file with two names is decided once */
        for (size_t j = 0; j < i && !seen; j++) seen = S_ISREG(entries[j].st.st_mode) && entries[j].st.st_ino == e->st.st_ino;
        if (S_ISREG(e->st.st_mode) && !seen) crash_file(w, m, e);
    }
    prune_records(w, m);
    unsynced_clear(&m->unsynced);       /* all of it is durable now */
    if (w->pick && w->ncrashes == w->pick->crash) {
        snprintf(w->pick->machine, sizeof w->pick->machine, "%s", m->name);
        w->pick->at_ns = w->now;
        hash_disk(w, m);
    }
}
