#include "code/sites.h"
#include <Zydis/Zydis.h>
#include <stdlib.h>
#include <string.h>

static const ZydisDecoder *decoder(void)
{
    static ZydisDecoder d;
    static bool ready;
    if (!ready) {
        ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
        ready = true;
    }
    return &d;
}

static unsigned kind_of(ZydisMnemonic m)
{
    switch (m) {
    case ZYDIS_MNEMONIC_RDTSC: return SITE_RDTSC;
    case ZYDIS_MNEMONIC_RDTSCP: return SITE_RDTSCP;
    case ZYDIS_MNEMONIC_RDRAND: return SITE_RDRAND;
    case ZYDIS_MNEMONIC_RDSEED: return SITE_RDSEED;
    case ZYDIS_MNEMONIC_CPUID: return SITE_CPUID;
    default: return 0;
    }
}

const char *site_kind_name(unsigned kind)
{
    static const char *const names[] = { "?", "rdtsc", "rdtscp", "rdrand", "rdseed", "cpuid" };
    return kind <= SITE_KIND_LAST ? names[kind] : "?";
}

static void fill_site(const ZydisDecodedInstruction *in, const uint8_t *bytes, unsigned kind, struct site *s)
{
    memset(s, 0, sizeof *s);
    s->len = in->length;
    s->kind = (uint8_t)kind;
    if (kind == SITE_RDRAND || kind == SITE_RDSEED) {
        s->reg = (uint8_t)((in->raw.rex.B << 3) | in->raw.modrm.rm);
        s->width = (uint8_t)in->operand_width;
    }
    memcpy(s->orig, bytes, in->length < sizeof s->orig ? in->length : sizeof s->orig);
}

bool site_decode(const uint8_t *bytes, size_t n, unsigned kinds, struct site *s)
{
    ZydisDecodedInstruction in;
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(decoder(), NULL, bytes, n, &in))) return false;
    unsigned k = kind_of(in.mnemonic);
    if (!k || !(kinds & SITE_BIT(k)) || in.length < 2) return false;
    fill_site(&in, bytes, k, s);
    return true;
}

/* Could an instruction of `kinds` have its opcode at p? rdtsc 0f 31,
 * rdtscp 0f 01 f9, rdrand/rdseed 0f c7 with a register operand and /6 or
 * /7 (a ModRM byte of f0-ff), cpuid 0f a2. Cheap, and a superset:
 * decoding decides. */
static bool opcode_at(const uint8_t *p, const uint8_t *end, unsigned kinds)
{
    if (end - p < 2 || p[0] != 0x0f) return false;
    if (p[1] == 0x31) return kinds & SITE_BIT(SITE_RDTSC);
    if (p[1] == 0xa2) return kinds & SITES_CPUID;
    if (p[1] == 0x01) return end - p >= 3 && p[2] == 0xf9 && (kinds & SITE_BIT(SITE_RDTSCP));
    if (p[1] == 0xc7) return end - p >= 3 && p[2] >= 0xf0 && (kinds & SITES_RANDOM);
    return false;
}

static int push(struct site_list *l, const struct site *s)
{
    if (l->n && l->v[l->n - 1].off == s->off) return 0;    /* two opcodes, one instruction */
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct site *v = realloc(l->v, cap * sizeof *v);
        if (!v) return -1;
        l->v = v, l->cap = cap;
    }
    l->v[l->n++] = *s;
    return 0;
}

enum verdict { V_SITE, V_OTHER, V_UNDECODABLE };

/* Decodes linearly from *pos (a known instruction start) until the
 * instruction that spans `at`; *pos is left at that instruction (also a
 * known start now). V_SITE if it is one of `kinds`, then s (its offset
 * relative to base). */
static enum verdict verify(const uint8_t *base, uint64_t *pos, uint64_t at, uint64_t to, unsigned kinds,
                           struct site *s)
{
    ZydisDecodedInstruction in;
    while (*pos <= at && *pos < to) {
        if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(decoder(), NULL, base + *pos, to - *pos, &in)))
            return V_UNDECODABLE;
        if (*pos + in.length > at) {
            unsigned k = kind_of(in.mnemonic);
            if (!k || !(kinds & SITE_BIT(k))) return V_OTHER;
            fill_site(&in, base + *pos, k, s);
            s->off = *pos;
            return V_SITE;
        }
        *pos += in.length;
    }
    return V_UNDECODABLE;
}

/* The nearest known start at or before `at` and not before `lo`. */
static uint64_t start_before(const struct elf_code *c, uint64_t lo, uint64_t at)
{
    size_t a = 0, b = c ? c->nstarts : 0;     /* first start > at */
    while (a < b) {
        size_t m = (a + b) / 2;
        if (c->starts[m] <= at) a = m + 1;
        else b = m;
    }
    return a > 0 && c->starts[a - 1] >= lo ? c->starts[a - 1] : lo;
}

static int scan_range(const uint8_t *base, uint64_t lo, uint64_t hi, const struct elf_code *c, unsigned kinds,
                      struct site_list *out)
{
    const uint8_t *end = base + hi;
    uint64_t cursor = lo;       /* a known start reached by the last decode */
    bool have_cursor = false;
    for (const uint8_t *p = base + lo; p < end; p++) {
        p = memchr(p, 0x0f, (size_t)(end - p));
        if (!p) break;
        if (!opcode_at(p, end, kinds)) continue;
        uint64_t at = (uint64_t)(p - base), pos = start_before(c, lo, at);
        /* Candidates come in order: go on from the last decode rather
         * than decode the same stretch again (code with no table). */
        if (have_cursor && cursor > pos && cursor <= at) pos = cursor;
        struct site s;
        enum verdict v = verify(base, &pos, at, hi, kinds, &s);
        if (v == V_UNDECODABLE) { out->unverified++; have_cursor = false; continue; }
        cursor = pos, have_cursor = true;
        if (v == V_SITE && push(out, &s) < 0) return -1;
    }
    return 0;
}

int sites_in_elf(const uint8_t *img, size_t len, const struct elf_code *c, unsigned kinds, struct site_list *out)
{
    for (size_t i = 0; i < c->nranges; i++) {
        uint64_t lo = c->ranges[i].off, hi = lo + c->ranges[i].len;
        if (hi > len) hi = len;
        if (lo < hi && scan_range(img, lo, hi, c, kinds, out) < 0) return -1;
    }
    return 0;
}

int sites_in_code(const uint8_t *code, size_t len, unsigned kinds, struct site_list *out)
{
    return scan_range(code, 0, len, NULL, kinds, out);
}

void site_list_free(struct site_list *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}
