#include "world/rewrite.h"
#include "base/xalloc.h"
#include "code/elf_code.h"
#include "code/sites.h"
#include "world/tracer.h"
#include "world/clockpage.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- one address space's sites ---- */

struct live_site { uint64_t addr; struct site s; };

struct code_sites {
    int refs;
    struct live_site *v;        /* sorted by address */
    size_t n, cap;
};

struct code_sites *code_sites_new(void)
{
    struct code_sites *cs = calloc(1, sizeof *cs);
    if (cs) cs->refs = 1;
    return cs;
}

struct code_sites *code_sites_copy(const struct code_sites *from)
{
    struct code_sites *cs = code_sites_new();
    if (!cs || !from || !from->n) return cs;
    cs->v = malloc(from->n * sizeof *cs->v);
    if (!cs->v) return cs;
    memcpy(cs->v, from->v, from->n * sizeof *cs->v);
    cs->n = cs->cap = from->n;
    return cs;
}

struct code_sites *code_sites_get(struct code_sites *cs)
{
    if (cs) cs->refs++;
    return cs;
}

void code_sites_put(struct code_sites *cs)
{
    if (!cs || --cs->refs > 0) return;
    free(cs->v);
    free(cs);
}

static size_t lower_bound(const struct code_sites *cs, uint64_t addr)
{
    size_t a = 0, b = cs->n;
    while (a < b) {
        size_t m = (a + b) / 2;
        if (cs->v[m].addr < addr) a = m + 1;
        else b = m;
    }
    return a;
}

static const struct site *site_at(const struct code_sites *cs, uint64_t addr)
{
    if (!cs) return NULL;
    size_t i = lower_bound(cs, addr);
    return i < cs->n && cs->v[i].addr == addr ? &cs->v[i].s : NULL;
}

/* New code mapped over [lo, hi): what was there is gone. */
static void forget_range(struct code_sites *cs, uint64_t lo, uint64_t hi)
{
    size_t a = lower_bound(cs, lo), b = lower_bound(cs, hi);
    if (a == b) return;
    memmove(cs->v + a, cs->v + b, (cs->n - b) * sizeof *cs->v);
    cs->n -= b - a;
}

static void remember(struct code_sites *cs, uint64_t addr, const struct site *s)
{
    size_t i = lower_bound(cs, addr);
    if (i < cs->n && cs->v[i].addr == addr) return;
    GROW(cs->v, cs->n, cs->cap);
    memmove(cs->v + i + 1, cs->v + i, (cs->n - i) * sizeof *cs->v);
    cs->v[i] = (struct live_site){ addr, *s };
    cs->n++;
}

/* Replaces the site at addr with ud2 if the original instruction is still
 * there (a program may have changed its code since it was mapped). */
static bool patch_site(pid_t tid, struct code_sites *cs, uint64_t addr, const struct site *s)
{
    uint8_t now[4], n = s->len < 4 ? s->len : 4;
    static const uint8_t trap[2] = { SITE_TRAP_0, SITE_TRAP_1 };
    if (code_peek(tid, addr, now, n)) return false;
    if (memcmp(now, s->orig, n) != 0) {
        if (memcmp(now, trap, 2) != 0) return false;
    } else if (code_poke(tid, addr, trap, 2)) {
        return false;
    }
    remember(cs, addr, s);
    return true;
}

/* ---- the sites of a file, found once per dsim process ---- */

struct file_sites {
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;   /* with ino and size: the same file's same content */
    struct site *v;
    size_t n;
    size_t unverified;              /* byte patterns left alone (code/sites.h) */
};
static struct file_sites *files;
static size_t nfiles, capfiles;

static const struct file_sites *file_sites(int fd)
{
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) return NULL;
    for (size_t i = 0; i < nfiles; i++) {
        struct file_sites *f = &files[i];
        if (f->ino == st.st_ino && f->size == st.st_size && f->mtime.tv_sec == st.st_mtim.tv_sec &&
            f->mtime.tv_nsec == st.st_mtim.tv_nsec && f->ctime.tv_sec == st.st_ctim.tv_sec &&
            f->ctime.tv_nsec == st.st_ctim.tv_nsec)
            return f;
    }
    GROW(files, nfiles, capfiles);
    struct file_sites *f = &files[nfiles];
    memset(f, 0, sizeof *f);
    f->ino = st.st_ino, f->size = st.st_size, f->mtime = st.st_mtim, f->ctime = st.st_ctim;
    uint8_t *img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (img != MAP_FAILED) {
        struct elf_code c;
        struct site_list l = { 0 };
        if (elf_code_read(img, (size_t)st.st_size, &c) == 0) {
            if (sites_in_elf(img, (size_t)st.st_size, &c, SITES_TSC | SITES_RANDOM | SITES_CPUID, &l) == 0)
                f->v = l.v, f->n = l.n, f->unverified = l.unverified;
            else site_list_free(&l);
            elf_code_free(&c);
        }
        munmap(img, (size_t)st.st_size);
    }
    nfiles++;
    return f;
}

unsigned rewrite_kinds(const struct world *w)
{
    return SITES_RANDOM | (w->tsc_rewrite ? SITES_TSC : 0) | (w->cpuid_virtual && w->cpuid_rewrite ? SITES_CPUID : 0);
}

static void note_rewrite(struct world *w, const char *what, unsigned done, unsigned kinds_seen)
{
    if (!done) return;
    char text[512];
    int n = snprintf(text, sizeof text, "code: %u site%s rewritten in %s (", done, done == 1 ? "" : "s", what);
    const char *sep = "";
    for (unsigned k = SITE_RDTSC; k <= SITE_KIND_LAST && n > 0 && (size_t)n < sizeof text; k++)
        if (kinds_seen & SITE_BIT(k)) {
            n += snprintf(text + n, sizeof text - (size_t)n, "%s%s", sep, site_kind_name(k));
            sep = " ";
        }
    if (n > 0 && (size_t)n < sizeof text - 1) snprintf(text + n, sizeof text - (size_t)n, ")");
    trace_note(w->trace, text);
}

/* Rewrites the sites of the file open at fd that lie in its bytes
 * [off, off + len), mapped at start. */
static void patch_mapping(struct world *w, struct thread *t, int fd, uint64_t start, uint64_t len, uint64_t off,
                          const char *what)
{
    const struct file_sites *f = file_sites(fd);
    struct code_sites *cs = t->proc->code;
    if (!f || !cs) return;
    unsigned kinds = rewrite_kinds(w), done = 0, seen = 0;
    for (size_t i = 0; i < f->n; i++) {
        const struct site *s = &f->v[i];
        if (!(kinds & SITE_BIT(s->kind)) || s->off < off || s->off + s->len > off + len) continue;
        if (patch_site(t->tid, cs, start + (s->off - off), s)) done++, seen |= SITE_BIT(s->kind);
    }
    note_rewrite(w, what, done, seen);
    if (f->unverified) {
        /* For `dsim verify`'s explanation: what was not rewritten. */
        char text[512];
        snprintf(text, sizeof text, "code: %zu byte pattern%s of rdtsc/rdtscp/rdrand/rdseed/cpuid in %s did not decode "
                 "as instructions from a known start and were left alone", f->unverified,
                 f->unverified == 1 ? "" : "s", what);
        trace_note(w->trace, text);
    }
}

/* ---- the vDSO: its functions become system calls ---- */

/* mov eax, NR; syscall; ret. The vDSO functions take at most three
 * arguments, in the registers the system calls take them in. */
static void vdso_stub(uint8_t out[8], int nr)
{
    const uint8_t stub[8] = { 0xb8, (uint8_t)nr, (uint8_t)(nr >> 8), 0, 0, 0x0f, 0x05, 0xc3 };
    memcpy(out, stub, 8);
}

/* jmp rel32 from `at` to `to`. */
static void vdso_jump(uint8_t out[5], uint64_t at, uint64_t to)
{
    int32_t rel = (int32_t)(to - (at + 5));
    out[0] = 0xe9;
    memcpy(out + 1, &rel, 4);
}

/* clock_reads = page: the vDSO's clock_gettime becomes the clock stub
 * (clockstub.S), its gettimeofday and time jumps into it, the other entry
 * points the system calls; a function dsim does not know (getrandom,
 * which would give the host's entropy) is also hidden from lookups, its
 * name made one no program asks for. */
struct vdso_fn { const char *name; int nr; uint64_t to; };
static const struct vdso_fn vdso_page_fns[] = {
    { "__vdso_clock_gettime", 0, 0 }, { "clock_gettime", 0, 0 },
    { "__vdso_gettimeofday", 0, 1 }, { "gettimeofday", 0, 1 },
    { "__vdso_time", 0, 2 }, { "time", 0, 2 },
    { "__vdso_getcpu", SYS_getcpu, 0 }, { "getcpu", SYS_getcpu, 0 },
    { "__vdso_clock_getres", SYS_clock_getres, 0 }, { "clock_getres", SYS_clock_getres, 0 },
};

/* The vDSO is patched in a copy of its image (out, len bytes), written
 * to the process at once at the end: n bytes at off, or -1 past its end. */
static int vdso_put(uint8_t *out, size_t len, uint64_t off, const uint8_t *bytes, size_t n)
{
    if (off > len || n > len - off) return -1;
    memcpy(out + off, bytes, n);
    return 0;
}

/* patch_site in a copy of the vDSO's image (out) mapped at start. */
static bool patch_vdso_site(uint8_t *out, size_t len, struct code_sites *cs, uint64_t start, const struct site *s)
{
    uint8_t n = s->len < 4 ? s->len : 4;
    static const uint8_t trap[2] = { SITE_TRAP_0, SITE_TRAP_1 };
    if (s->off > len || n > len - s->off) return false;
    if (memcmp(out + s->off, s->orig, n) != 0) {
        if (memcmp(out + s->off, trap, 2) != 0) return false;
    } else if (vdso_put(out, len, s->off, trap, 2)) {
        return false;
    }
    remember(cs, start + s->off, s);
    return true;
}

struct vdso_scan { uint8_t *out; size_t len; unsigned hidden; int64_t stub_off; uint64_t stub_len; };

static int vdso_other(void *arg, const char *name, size_t name_off, int64_t off, uint64_t size)
{
    (void)size;
    struct vdso_scan *v = arg;
    for (size_t i = 0; i < sizeof vdso_page_fns / sizeof *vdso_page_fns; i++)
        if (!strcmp(name, vdso_page_fns[i].name)) return 0;
    if (off >= v->stub_off && (uint64_t)(off - v->stub_off) < v->stub_len) return 0;
    uint8_t stub[8], dot = '.';
    vdso_stub(stub, !strcmp(name, "getrandom") || !strcmp(name, "__vdso_getrandom") ? SYS_getrandom : SYS_getpid);
    if (strcmp(name, "getrandom") && strcmp(name, "__vdso_getrandom")) stub[0] = 0x0f, stub[1] = 0x0b;  /* ud2 */
    vdso_put(v->out, v->len, (uint64_t)off, stub, 8);
    if (name_off && vdso_put(v->out, v->len, name_off, &dot, 1) == 0) v->hidden++;
    return 0;
}

/* The stub in the vDSO image at start: its offset, or -1 (clock reads stop). */
static int64_t patch_vdso_page(uint64_t start, const uint8_t *img, uint8_t *out, size_t len, unsigned *fns)
{
    uint64_t size = 0, stub_len = (uint64_t)(dsim_clock_stub_end - dsim_clock_stub);
    int64_t at = elf_symbol_find(img, len, "__vdso_clock_gettime", &size);
    if (at < 0 || size < stub_len || (uint64_t)at + stub_len > len) return -1;
    if (vdso_put(out, len, (uint64_t)at, dsim_clock_stub, stub_len)) return -1;
    const uint64_t to[3] = { 0, (uint64_t)(dsim_clock_stub_gettimeofday - dsim_clock_stub),
                             (uint64_t)(dsim_clock_stub_time - dsim_clock_stub) };
    for (size_t i = 0; i < sizeof vdso_page_fns / sizeof *vdso_page_fns; i++) {
        const struct vdso_fn *f = &vdso_page_fns[i];
        int64_t off = elf_symbol_offset(img, len, f->name);
        if (off < 0 || (off >= at && (uint64_t)(off - at) < stub_len)) continue;   /* the stub itself */
        uint8_t code[8];
        if (f->nr) vdso_stub(code, f->nr);
        else vdso_jump(code, start + (uint64_t)off, start + (uint64_t)at + to[f->to]);
        if ((uint64_t)off + 8 <= len && vdso_put(out, len, (uint64_t)off, code, f->nr ? 8 : 5) == 0) (*fns)++;
    }
    struct vdso_scan v = { out, len, 0, at, stub_len };
    elf_each_function(img, len, vdso_other, &v);
    return at;
}

static void patch_vdso(struct world *w, struct thread *t, uint64_t start, uint64_t end)
{
    static const struct { const char *name; int nr; } entries[] = {
        { "__vdso_clock_gettime", SYS_clock_gettime }, { "clock_gettime", SYS_clock_gettime },
        { "__vdso_gettimeofday", SYS_gettimeofday }, { "gettimeofday", SYS_gettimeofday },
        { "__vdso_time", SYS_time }, { "time", SYS_time },
        { "__vdso_getcpu", SYS_getcpu }, { "getcpu", SYS_getcpu },
        { "__vdso_clock_getres", SYS_clock_getres }, { "clock_getres", SYS_clock_getres },
    };
    size_t len = (size_t)(end - start);
    uint8_t *img = len <= (1 << 20) ? malloc(2 * len) : NULL, *out = img + len;
    if (!img || mem_read(t->tid, start, img, len)) { free(img); return; }
    memcpy(out, img, len);
    unsigned stubs = 0;
    int64_t stub_at = -1;
    uint64_t stub_len = (uint64_t)(dsim_clock_stub_end - dsim_clock_stub);
    if (w->conf->clock_reads == CLOCK_READS_PAGE) stub_at = patch_vdso_page(start, img, out, len, &stubs);
    if (stub_at < 0) {
        for (size_t i = 0; i < sizeof entries / sizeof *entries; i++) {
            int64_t off = elf_symbol_offset(img, len, entries[i].name);
            uint8_t stub[8];
            vdso_stub(stub, entries[i].nr);
            if (off >= 0 && (uint64_t)off + 8 <= len && vdso_put(out, len, (uint64_t)off, stub, 8) == 0) stubs++;
        }
    }
    /* Its own rdtsc reads, should a program jump past the entry points
     * (none within the clock stub, which has replaced them). */
    struct elf_code c;
    struct site_list l = { 0 };
    unsigned done = 0, seen = 0, kinds = rewrite_kinds(w);
    if (elf_code_read(img, len, &c) == 0) {
        if (sites_in_elf(img, len, &c, kinds, &l) == 0)
            for (size_t i = 0; i < l.n; i++) {
                if (stub_at >= 0 && l.v[i].off + 16 > (uint64_t)stub_at && l.v[i].off < (uint64_t)stub_at + stub_len)
                    continue;
                if (patch_vdso_site(out, len, t->proc->code, start, &l.v[i])) done++, seen |= SITE_BIT(l.v[i].kind);
            }
        site_list_free(&l);
        elf_code_free(&c);
    }
    /* One write of the changed span. */
    size_t lo = 0, hi = len;
    while (lo < len && img[lo] == out[lo]) lo++;
    while (hi > lo && img[hi - 1] == out[hi - 1]) hi--;
    bool written = code_write(t->tid, start + lo, img + lo, out + lo, hi - lo) == 0;
    free(img);
    if (!written) {
        forget_range(t->proc->code, start, end);
        trace_note(w->trace, "code: the vDSO could not be rewritten: its clock reads and rdtsc are the host's");
        return;
    }
    if (stub_at >= 0) t->proc->clock_stub = start + (uint64_t)stub_at;
    char what[80];
    if (stub_at >= 0) snprintf(what, sizeof what, "[vdso] (clock page stub, %u entry points)", stubs);
    else snprintf(what, sizeof what, "[vdso] (%u entry points made system calls)", stubs);
    note_rewrite(w, what, done ? done : stubs, seen);
}

/* ---- mappings ---- */

struct mapping { uint64_t start, end, off; char perms[5]; char path[4096]; };

static bool parse_maps_line(const char *line, struct mapping *m)
{
    int path_at = 0;
    m->path[0] = 0;
    if (sscanf(line, "%lx-%lx %4s %lx %*s %*s %n", &m->start, &m->end, m->perms, &m->off, &path_at) < 4) return false;
    if (path_at > 0) {
        snprintf(m->path, sizeof m->path, "%s", line + path_at);
        m->path[strcspn(m->path, "\n")] = 0;
    }
    return true;
}

/* An fd for the file mapped at m: the exact file the kernel maps. */
static int open_mapped(pid_t pid, const struct mapping *m)
{
    char path[4200];
    snprintf(path, sizeof path, "/proc/%d/map_files/%lx-%lx", pid, m->start, m->end);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && m->path[0] == '/') {
        snprintf(path, sizeof path, "/proc/%d/root%s", pid, m->path);
        fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    return fd;
}

/* Rewrites every private, executable, file-backed mapping that meets
 * [lo, hi) (and the vDSO, if vdso). */
static void patch_mapped(struct world *w, struct thread *t, uint64_t lo, uint64_t hi, bool vdso)
{
    char path[64], line[4400];
    snprintf(path, sizeof path, "/proc/%d/maps", t->tid);
    FILE *f = fopen(path, "re");
    if (!f) return;
    struct mapping m;
    while (fgets(line, sizeof line, f)) {
        if (!parse_maps_line(line, &m) || m.perms[2] != 'x' || m.end <= lo || m.start >= hi) continue;
        if (vdso && !strcmp(m.path, "[vdso]")) { patch_vdso(w, t, m.start, m.end); continue; }
        if (m.perms[3] != 'p' || m.path[0] != '/') continue;      /* shared: writing would change the file */
        int fd = open_mapped(t->tid, &m);
        if (fd < 0) continue;
        forget_range(t->proc->code, m.start, m.end);
        patch_mapping(w, t, fd, m.start, m.end - m.start, m.off, m.path);
        close(fd);
    }
    fclose(f);
}

void rewrite_exec(struct world *w, struct thread *t)
{
    code_sites_put(t->proc->code);
    t->proc->code = code_sites_new();
    patch_mapped(w, t, 0, UINT64_MAX, true);
}

bool rewrite_map_entry(struct world *w, struct thread *t)
{
    (void)w;
    long nr = SYSNR(t);
    if (nr != SYS_mmap && nr != SYS_mprotect && nr != SYS_pkey_mprotect) return false;
    t->code_map_nr = nr;
    memcpy(t->code_map_args, (uint64_t[6]){ ARG0(t), ARG1(t), ARG2(t), ARG3(t), ARG4(t), ARG5(t) },
           sizeof t->code_map_args);
    tracer_syscall(t->tid, 0);
    return true;
}

static void mmap_done(struct world *w, struct thread *t, uint64_t addr)
{
    const uint64_t *a = t->code_map_args;
    uint64_t len = (a[1] + 4095) & ~4095ULL;
    int flags = (int)a[3], fd = (int)a[4];
    forget_range(t->proc->code, addr, addr + len);
    if (flags & MAP_ANONYMOUS) {
        if (w->tsc_rewrite)
            trace_note(w->trace, "code: anonymous executable memory is not scanned (generated code there "
                                 "reads the host's rdtsc and rdrand)");
        return;
    }
    if ((flags & MAP_TYPE) != MAP_PRIVATE) {
        trace_note(w->trace, "code: a shared executable mapping is not rewritten");
        return;
    }
    int copy = fd_copy(w, t, fd);
    if (copy < 0) return;
    char what[4096], link[64];
    snprintf(link, sizeof link, "/proc/%d/fd/%d", t->tid, fd);
    ssize_t n = readlink(link, what, sizeof what - 1);
    if (n > 0) what[n] = 0;
    else snprintf(what, sizeof what, "the file at fd %d", fd);
    patch_mapping(w, t, copy, addr, len, a[5], what);
    close(copy);
}

bool rewrite_map_exit(struct world *w, struct thread *t)
{
    if (!t->code_map_nr) return false;
    long nr = t->code_map_nr;
    t->code_map_nr = 0;
    struct user_regs_struct r;
    if (tracer_getregs(t->tid, &r) == 0 && !((long)r.rax < 0 && (long)r.rax > -4096)) {
        if (nr == SYS_mmap) mmap_done(w, t, r.rax);
        else patch_mapped(w, t, t->code_map_args[0], t->code_map_args[0] + t->code_map_args[1], false);
    }
    tracer_cont(t->tid, 0);
    return true;
}

/* ---- answering the traps ---- */

static uint64_t *reg_slot(struct user_regs_struct *r, unsigned reg)
{
    switch (reg) {
    case 0: return (uint64_t *)&r->rax; case 1: return (uint64_t *)&r->rcx;
    case 2: return (uint64_t *)&r->rdx; case 3: return (uint64_t *)&r->rbx;
    case 4: return (uint64_t *)&r->rsp; case 5: return (uint64_t *)&r->rbp;
    case 6: return (uint64_t *)&r->rsi; case 7: return (uint64_t *)&r->rdi;
    case 8: return (uint64_t *)&r->r8; case 9: return (uint64_t *)&r->r9;
    case 10: return (uint64_t *)&r->r10; case 11: return (uint64_t *)&r->r11;
    case 12: return (uint64_t *)&r->r12; case 13: return (uint64_t *)&r->r13;
    case 14: return (uint64_t *)&r->r14; default: return (uint64_t *)&r->r15;
    }
}

/* rdtsc and rdtscp read a 1 GHz TSC counting the machine's monotonic
 * nanoseconds; each read costs a quantum, so a loop waiting for the TSC to
 * move sees it move. rdrand and rdseed give the machine's entropy and
 * always succeed (CF=1). cpuid tells the virtual CPU (code/vcpu.h), as
 * seen from cpu 0, where getcpu says every thread runs; it is neither a
 * step nor in the trace, since its answer depends on the config alone. */
static void answer(struct world *w, struct thread *t, struct user_regs_struct *r, const struct site *s)
{
    const char *name = site_kind_name(s->kind);
    if (s->kind == SITE_CPUID) {
        uint32_t out[4];
        vcpu_cpuid(&w->vcpu, (uint32_t)r->rax, (uint32_t)r->rcx, 0, out);
        r->rax = out[VCPU_EAX], r->rbx = out[VCPU_EBX], r->rcx = out[VCPU_ECX], r->rdx = out[VCPU_EDX];
    } else if (s->kind == SITE_RDTSC || s->kind == SITE_RDTSCP) {
        w->now += w->conf->quantum_ns;
        clockpage_refresh(w, t);
        uint64_t tsc = machine_monotonic(w, t->proc->m);
        r->rax = tsc & 0xffffffffu;
        r->rdx = tsc >> 32;
        if (s->kind == SITE_RDTSCP) r->rcx = 0;      /* TSC_AUX: cpu 0 */
        trace_value(w, t, name, tsc);
    } else {
        uint64_t v = 0, *slot = reg_slot(r, s->reg);
        random_fill(w, t, &v, (size_t)(s->width / 8));
        if (s->width == 16) *slot = (*slot & ~0xffffULL) | v;
        else *slot = v;                 /* a 32-bit result clears the upper half, as any */
        r->eflags = (r->eflags & ~0x8d5ULL) | 1;        /* CF=1; OF SF ZF AF PF clear */
        trace_value(w, t, name, v);
    }
    r->rip += s->len;
}

bool rewrite_trap(struct world *w, struct thread *t, int sig)
{
    siginfo_t si;
    struct user_regs_struct r;
    struct site s;
    if (sig != SIGILL && sig != SIGSEGV) return false;
    if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) != 0 || tracer_getregs(t->tid, &r)) return false;
    if (sig == SIGILL) {
        /* A rewritten site, still ud2 (not the program's own ud2). */
        const struct site *found = si.si_code == ILL_ILLOPN ? site_at(t->proc->code, r.rip) : NULL;
        uint8_t now[2];
        if (!found || mem_read(t->tid, r.rip, now, 2) || now[0] != SITE_TRAP_0 || now[1] != SITE_TRAP_1) return false;
        s = *found;
    } else {
        /* PR_SET_TSC's fault: the kernel's SIGSEGV at an rdtsc or rdtscp;
         * ARCH_SET_CPUID's at a cpuid. */
        uint8_t insn[16];
        size_t n = sizeof insn;
        unsigned kinds = SITES_TSC | (w->cpuid_virtual ? SITES_CPUID : 0);
        if (si.si_code != SI_KERNEL) return false;
        if (mem_read(t->tid, r.rip, insn, n)) n = 3;        /* near the end of the mapping */
        if ((n == 3 && mem_read(t->tid, r.rip, insn, n)) || !site_decode(insn, n, kinds, &s)) return false;
    }
    answer(w, t, &r, &s);
    tracer_setregs(t->tid, &r);
    tracer_cont(t->tid, 0);     /* the signal is dropped */
    return true;
}
