#include "code/elf_code.h"
#include <elf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Bounds-checked views of the image: a crafted file must not make the
 * supervisor read outside it. */
struct img { const uint8_t *p; size_t len; };

static bool in_img(const struct img *im, uint64_t off, uint64_t n)
{
    return off <= im->len && n <= im->len - off;
}

static uint64_t rd(const struct img *im, uint64_t off, unsigned size)
{
    uint64_t v = 0;
    if (in_img(im, off, size)) memcpy(&v, im->p + off, size);      /* little-endian host */
    return v;
}

static const Elf64_Ehdr *ehdr_of(const struct img *im)
{
    if (!in_img(im, 0, sizeof(Elf64_Ehdr))) return NULL;
    const Elf64_Ehdr *e = (const Elf64_Ehdr *)im->p;
    if (memcmp(e->e_ident, ELFMAG, SELFMAG) || e->e_ident[EI_CLASS] != ELFCLASS64 ||
        e->e_ident[EI_DATA] != ELFDATA2LSB || e->e_machine != EM_X86_64)
        return NULL;
    return e;
}

static const Elf64_Phdr *phdrs_of(const struct img *im, const Elf64_Ehdr *e)
{
    if (e->e_phentsize != sizeof(Elf64_Phdr) || !in_img(im, e->e_phoff, (uint64_t)e->e_phnum * sizeof(Elf64_Phdr)))
        return NULL;
    return (const Elf64_Phdr *)(im->p + e->e_phoff);
}

static const Elf64_Shdr *shdrs_of(const struct img *im, const Elf64_Ehdr *e)
{
    if (e->e_shentsize != sizeof(Elf64_Shdr) || e->e_shnum == 0 ||
        !in_img(im, e->e_shoff, (uint64_t)e->e_shnum * sizeof(Elf64_Shdr)))
        return NULL;
    return (const Elf64_Shdr *)(im->p + e->e_shoff);
}

/* ---- addresses to offsets ---- */

struct layout {
    const struct img *im;
    const Elf64_Phdr *ph;
    unsigned nph;
};

/* The file offset holding vaddr in some loaded segment, or -1. */
static int64_t off_of(const struct layout *l, uint64_t vaddr)
{
    for (unsigned i = 0; i < l->nph; i++) {
        const Elf64_Phdr *p = &l->ph[i];
        if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr && vaddr - p->p_vaddr < p->p_filesz)
            return (int64_t)(p->p_offset + (vaddr - p->p_vaddr));
    }
    return -1;
}

/* ---- the list being built ---- */

struct starts { uint64_t *v; size_t n, cap; bool oom; };

static void add_start(struct starts *s, const struct elf_code *c, int64_t off)
{
    if (off < 0) return;
    bool code = false;          /* only offsets in executable bytes are instruction starts */
    for (size_t i = 0; i < c->nranges && !code; i++)
        code = (uint64_t)off >= c->ranges[i].off && (uint64_t)off - c->ranges[i].off < c->ranges[i].len;
    if (!code) return;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        uint64_t *v = realloc(s->v, cap * sizeof *v);
        if (!v) { s->oom = true; return; }
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = (uint64_t)off;
}

static void add_vaddr(struct starts *s, const struct elf_code *c, const struct layout *l, uint64_t vaddr)
{
    add_start(s, c, off_of(l, vaddr));
}

/* ---- symbol tables ---- */

static void symtab_starts(struct starts *s, const struct elf_code *c, const struct layout *l, const Elf64_Shdr *sh)
{
    const struct img *im = l->im;
    if (sh->sh_entsize != sizeof(Elf64_Sym) || !in_img(im, sh->sh_offset, sh->sh_size)) return;
    const Elf64_Sym *sym = (const Elf64_Sym *)(im->p + sh->sh_offset);
    for (size_t i = 0; i < sh->sh_size / sizeof *sym; i++) {
        unsigned type = ELF64_ST_TYPE(sym[i].st_info);
        if ((type == STT_FUNC || type == STT_GNU_IFUNC) && sym[i].st_value && sym[i].st_shndx != SHN_UNDEF)
            add_vaddr(s, c, l, sym[i].st_value);
    }
}

/* ---- .eh_frame_hdr: the unwinder's sorted table of every FDE's function ---- */

/* A DWARF pointer encoding (DW_EH_PE_*) read at off; its application
 * relative to pc_base (the field's own address) or data_base. */
static bool read_encoded(const struct img *im, uint64_t *off, unsigned enc, uint64_t pc_base, uint64_t data_base,
                         uint64_t *out)
{
    uint64_t v;
    unsigned size;
    switch (enc & 0x0f) {
    case 0x00: case 0x04: case 0x0c: size = 8; break;      /* absptr, udata8, sdata8 */
    case 0x03: case 0x0b: size = 4; break;                 /* udata4, sdata4 */
    case 0x02: case 0x0a: size = 2; break;                 /* udata2, sdata2 */
    default: return false;
    }
    if (!in_img(im, *off, size)) return false;
    v = rd(im, *off, size);
    if ((enc & 0x0f) == 0x0b) v = (uint64_t)(int64_t)(int32_t)v;
    if ((enc & 0x0f) == 0x0a) v = (uint64_t)(int64_t)(int16_t)v;
    switch (enc & 0x70) {
    case 0x00: break;
    case 0x10: v += pc_base; break;                        /* pcrel */
    case 0x30: v += data_base; break;                      /* datarel */
    default: return false;
    }
    *out = v;
    *off += size;
    return true;
}

static void eh_frame_hdr_starts(struct starts *s, const struct elf_code *c, const struct layout *l,
                                uint64_t hdr_off, uint64_t hdr_vaddr, uint64_t hdr_size)
{
    const struct img *im = l->im;
    if (!in_img(im, hdr_off, hdr_size) || hdr_size < 4 || rd(im, hdr_off, 1) != 1) return;
    unsigned ptr_enc = (unsigned)rd(im, hdr_off + 1, 1), count_enc = (unsigned)rd(im, hdr_off + 2, 1),
             table_enc = (unsigned)rd(im, hdr_off + 3, 1);
    uint64_t off = hdr_off + 4, v, count;
    if (ptr_enc == 0xff || count_enc == 0xff || table_enc == 0xff) return;     /* omitted: no table */
    if (!read_encoded(im, &off, ptr_enc, hdr_vaddr + (off - hdr_off), hdr_vaddr, &v)) return;
    if (!read_encoded(im, &off, count_enc, hdr_vaddr + (off - hdr_off), hdr_vaddr, &count)) return;
    for (uint64_t i = 0; i < count && off < hdr_off + hdr_size; i++) {
        uint64_t loc, fde;
        if (!read_encoded(im, &off, table_enc, hdr_vaddr + (off - hdr_off), hdr_vaddr, &loc) ||
            !read_encoded(im, &off, table_enc, hdr_vaddr + (off - hdr_off), hdr_vaddr, &fde))
            return;
        add_vaddr(s, c, l, loc);
    }
}

/* ---- Go's function table (.gopclntab), in the formats of Go 1.2 to 1.22 ---- */

static void gopclntab_starts(struct starts *s, const struct elf_code *c, const struct layout *l, uint64_t off,
                             uint64_t size, uint64_t text_vaddr)
{
    const struct img *im = l->im;
    if (!in_img(im, off, size) || size < 16 || rd(im, off + 7, 1) != 8) return;    /* 8-byte pointers only */
    uint32_t magic = (uint32_t)rd(im, off, 4);
    uint64_t nfunc = rd(im, off + 8, 8);
    if (magic == 0xfffffff0 || magic == 0xfffffff1) {        /* Go 1.18, 1.20+ */
        uint64_t text = rd(im, off + 24, 8), pcln = rd(im, off + 64, 8);
        if (!text) text = text_vaddr;                        /* PIE: relocated at load */
        if (pcln >= size || nfunc > (size - pcln) / 8) return;
        for (uint64_t i = 0; i < nfunc; i++) add_vaddr(s, c, l, text + rd(im, off + pcln + i * 8, 4));
    } else if (magic == 0xfffffffa) {                         /* Go 1.16 */
        uint64_t pcln = rd(im, off + 56, 8);
        if (pcln >= size || nfunc > (size - pcln) / 16) return;
        for (uint64_t i = 0; i < nfunc; i++) add_vaddr(s, c, l, rd(im, off + pcln + i * 16, 8));
    } else if (magic == 0xfffffffb) {                         /* Go 1.2 to 1.15 */
        if (nfunc > (size - 16) / 16) return;
        for (uint64_t i = 0; i < nfunc; i++) add_vaddr(s, c, l, rd(im, off + 16 + i * 16, 8));
    }
}

/* ---- putting it together ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static const char *section_name(const struct img *im, const Elf64_Shdr *strtab, uint32_t name)
{
    if (!strtab || name >= strtab->sh_size || !in_img(im, strtab->sh_offset, strtab->sh_size)) return "";
    const char *n = (const char *)im->p + strtab->sh_offset + name;
    return memchr(n, 0, strtab->sh_size - name) ? n : "";
}

static int code_ranges(const struct img *im, const Elf64_Phdr *ph, unsigned nph, struct elf_code *out)
{
    out->ranges = calloc(nph ? nph : 1, sizeof *out->ranges);
    if (!out->ranges) return -1;
    for (unsigned i = 0; i < nph; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) || ph[i].p_offset >= im->len) continue;
        uint64_t len = ph[i].p_filesz < im->len - ph[i].p_offset ? ph[i].p_filesz : im->len - ph[i].p_offset;
        out->ranges[out->nranges++] = (struct code_range){ ph[i].p_offset, len };
    }
    return 0;
}

int elf_code_read(const uint8_t *p, size_t len, struct elf_code *out)
{
    struct img im = { p, len };
    memset(out, 0, sizeof *out);
    const Elf64_Ehdr *e = ehdr_of(&im);
    const Elf64_Phdr *ph = e ? phdrs_of(&im, e) : NULL;
    if (!ph || code_ranges(&im, ph, e->e_phnum, out) < 0) return -1;
    struct layout l = { &im, ph, e->e_phnum };
    struct starts s = { 0 };

    add_vaddr(&s, out, &l, e->e_entry);
    for (unsigned i = 0; i < e->e_phnum; i++)
        if (ph[i].p_type == PT_GNU_EH_FRAME)
            eh_frame_hdr_starts(&s, out, &l, ph[i].p_offset, ph[i].p_vaddr, ph[i].p_filesz);
    const Elf64_Shdr *sh = shdrs_of(&im, e);
    const Elf64_Shdr *names = sh && e->e_shstrndx < e->e_shnum ? &sh[e->e_shstrndx] : NULL;
    uint64_t text_vaddr = 0;
    for (unsigned i = 0; sh && i < e->e_shnum; i++)
        if (!strcmp(section_name(&im, names, sh[i].sh_name), ".text")) text_vaddr = sh[i].sh_addr;
    for (unsigned i = 0; sh && i < e->e_shnum; i++) {
        if (sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM) symtab_starts(&s, out, &l, &sh[i]);
        if ((sh[i].sh_flags & SHF_EXECINSTR) && sh[i].sh_type == SHT_PROGBITS) add_vaddr(&s, out, &l, sh[i].sh_addr);
        if (!strcmp(section_name(&im, names, sh[i].sh_name), ".gopclntab") && sh[i].sh_type != SHT_NOBITS)
            gopclntab_starts(&s, out, &l, sh[i].sh_offset, sh[i].sh_size, text_vaddr);
    }
    for (size_t i = 0; i < out->nranges; i++) add_start(&s, out, (int64_t)out->ranges[i].off);
    if (s.oom) { free(s.v); elf_code_free(out); return -1; }
    if (s.n) qsort(s.v, s.n, sizeof *s.v, cmp_u64);
    size_t n = 0;
    for (size_t i = 0; i < s.n; i++)
        if (n == 0 || s.v[i] != s.v[n - 1]) s.v[n++] = s.v[i];
    out->starts = s.v;
    out->nstarts = n;
    return 0;
}

void elf_code_free(struct elf_code *c)
{
    free(c->ranges);
    free(c->starts);
    memset(c, 0, sizeof *c);
}

int elf_each_function(const uint8_t *p, size_t len, elf_function_fn *fn, void *arg)
{
    struct img im = { p, len };
    const Elf64_Ehdr *e = ehdr_of(&im);
    const Elf64_Phdr *ph = e ? phdrs_of(&im, e) : NULL;
    const Elf64_Shdr *sh = ph ? shdrs_of(&im, e) : NULL;
    if (!sh) return -1;
    struct layout l = { &im, ph, e->e_phnum };
    for (unsigned i = 0; i < e->e_shnum; i++) {
        if ((sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) || sh[i].sh_link >= e->e_shnum ||
            sh[i].sh_entsize != sizeof(Elf64_Sym) || !in_img(&im, sh[i].sh_offset, sh[i].sh_size))
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        const Elf64_Sym *sym = (const Elf64_Sym *)(p + sh[i].sh_offset);
        for (size_t j = 0; j < sh[i].sh_size / sizeof *sym; j++) {
            unsigned type = ELF64_ST_TYPE(sym[j].st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !sym[j].st_value) continue;
            const char *name = section_name(&im, str, sym[j].st_name);
            int64_t off = off_of(&l, sym[j].st_value);
            if (off >= 0 && fn(arg, name, *name ? (size_t)(name - (const char *)p) : 0, off, sym[j].st_size))
                return 1;
        }
    }
    return 0;
}

struct find { const char *name; int64_t off; uint64_t size; };

static int found(void *arg, const char *name, size_t name_off, int64_t off, uint64_t size)
{
    (void)name_off;
    struct find *f = arg;
    if (strcmp(name, f->name)) return 0;
    f->off = off, f->size = size;
    return 1;
}

int64_t elf_symbol_find(const uint8_t *p, size_t len, const char *name, uint64_t *size)
{
    struct find f = { name, -1, 0 };
    elf_each_function(p, len, found, &f);
    if (size) *size = f.size;
    return f.off;
}

int64_t elf_symbol_offset(const uint8_t *p, size_t len, const char *name)
{
    return elf_symbol_find(p, len, name, NULL);
}
