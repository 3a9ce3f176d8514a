#include "code/vcpu.h"
#include <elf.h>
#include <stdio.h>
#include <string.h>

enum word { W_L1_EDX, W_X1_EDX, W_L1_ECX, W_X1_ECX };   /* Linux's order of the flags */

/* The model's features: where cpuid shows each, its name in /proc/cpuinfo,
 * and whether it is an instruction a program could run (so one the host
 * lacks must be taken out); the others describe the system, which no
 * program can use (apic, mtrr) or which every x86-64 CPU has. */
static const struct feature { enum word word; unsigned bit; const char *name; bool insn; } features[] = {
    { W_L1_EDX, 0, "fpu", false }, { W_L1_EDX, 1, "vme", false }, { W_L1_EDX, 2, "de", false },
    { W_L1_EDX, 3, "pse", false }, { W_L1_EDX, 4, "tsc", false }, { W_L1_EDX, 5, "msr", false },
    { W_L1_EDX, 6, "pae", false }, { W_L1_EDX, 7, "mce", false }, { W_L1_EDX, 8, "cx8", true },
    { W_L1_EDX, 9, "apic", false }, { W_L1_EDX, 11, "sep", false }, { W_L1_EDX, 12, "mtrr", false },
    { W_L1_EDX, 13, "pge", false }, { W_L1_EDX, 14, "mca", false }, { W_L1_EDX, 15, "cmov", true },
    { W_L1_EDX, 16, "pat", false }, { W_L1_EDX, 17, "pse36", false }, { W_L1_EDX, 19, "clflush", true },
    { W_L1_EDX, 23, "mmx", true }, { W_L1_EDX, 24, "fxsr", true }, { W_L1_EDX, 25, "sse", true },
    { W_L1_EDX, 26, "sse2", true }, { W_L1_EDX, 28, "ht", false },
    { W_X1_EDX, 11, "syscall", false }, { W_X1_EDX, 20, "nx", false }, { W_X1_EDX, 29, "lm", false },
    { W_L1_ECX, 0, "pni", true }, { W_L1_ECX, 9, "ssse3", true }, { W_L1_ECX, 13, "cx16", true },
    { W_L1_ECX, 19, "sse4_1", true }, { W_L1_ECX, 20, "sse4_2", true }, { W_L1_ECX, 23, "popcnt", true },
    { W_X1_ECX, 0, "lahf_lm", true },
};
#define NFEATURES (sizeof features / sizeof *features)

static uint32_t *word_of(struct vcpu_mask *m, enum word w)
{
    switch (w) {
    case W_L1_EDX: return &m->l1_edx;
    case W_X1_EDX: return &m->x1_edx;
    case W_L1_ECX: return &m->l1_ecx;
    default: return &m->x1_ecx;
    }
}

static uint32_t word_get(const struct vcpu_mask *m, enum word w)
{
    return *word_of((struct vcpu_mask *)m, w);
}

void vcpu_init(struct vcpu *c, unsigned cpus)
{
    memset(c, 0, sizeof *c);
    c->cpus = cpus ? cpus : 1;
    for (size_t i = 0; i < NFEATURES; i++) *word_of(&c->has, features[i].word) |= 1u << features[i].bit;
}

void vcpu_mask_host(struct vcpu *c, const struct vcpu_mask *host, char *missing, size_t len)
{
    size_t n = 0;
    if (len) missing[0] = 0;
    for (size_t i = 0; i < NFEATURES; i++) {
        const struct feature *f = &features[i];
        if (!f->insn || (word_get(host, f->word) & (1u << f->bit))) continue;
        *word_of(&c->has, f->word) &= ~(1u << f->bit);
        int k = snprintf(missing + n, len > n ? len - n : 0, "%s%s", n ? " " : "", f->name);
        if (k > 0) n += (size_t)k;
        if (n >= len) n = len ? len - 1 : 0;
    }
}

bool vcpu_auxv(const struct vcpu *c, uint64_t type, uint64_t *value)
{
    if (type == AT_HWCAP) *value = c->has.l1_edx;
    else if (type == AT_HWCAP2) *value = 0;
    else return false;
    return true;
}

void vcpu_flags(const struct vcpu *c, char *buf, size_t len)
{
    size_t n = 0;
    if (len) buf[0] = 0;
    for (size_t i = 0; i < NFEATURES; i++) {
        const struct feature *f = &features[i];
        if (!(word_get(&c->has, f->word) & (1u << f->bit))) continue;
        int k = snprintf(buf + n, len > n ? len - n : 0, "%s%s", n ? " " : "", f->name);
        if (k > 0) n += (size_t)k;
        if (n >= len) n = len ? len - 1 : 0;
    }
}

static void put_text(uint32_t *regs, const char *text, size_t nregs)
{
    char bytes[48] = { 0 };
    strncpy(bytes, text, sizeof bytes);
    memcpy(regs, bytes, nregs * 4);
}

/* The smallest n with 1 << n >= v. */
static unsigned bits_for(unsigned v)
{
    unsigned n = 0;
    while ((1u << n) < v && n < 31) n++;
    return n;
}

#define MAX_BASIC 0x0b
#define MAX_EXTENDED 0x80000008u

#define LINE 64
/* L1 data, L1 instruction, L2: leaf 4's order. */
static const struct vcpu_cache caches[] = {
    { 1, "Data", 1, 8, 64, LINE }, { 2, "Instruction", 1, 8, 64, LINE },
    { 3, "Unified", 2, 8, VCPU_L2_KB * 1024 / (8 * LINE), LINE },
};

size_t vcpu_caches(const struct vcpu_cache **out)
{
    *out = caches;
    return sizeof caches / sizeof *caches;
}

void vcpu_cpuid(const struct vcpu *c, uint32_t leaf, uint32_t subleaf, unsigned cpu, uint32_t out[4])
{
    memset(out, 0, 4 * sizeof *out);
    unsigned cores = c->cpus, apic = cpu;
    switch (leaf) {
    case 0: {
        uint32_t v[3];
        put_text(v, VCPU_VENDOR, 3);
        out[VCPU_EAX] = MAX_BASIC;
        out[VCPU_EBX] = v[0], out[VCPU_EDX] = v[1], out[VCPU_ECX] = v[2];
        break;
    }
    case 1:
        out[VCPU_EAX] = (VCPU_FAMILY << 8) | (VCPU_MODEL << 4) | VCPU_STEPPING;
        /* clflush line in 8-byte units, logical processors per package,
         * this one's initial APIC id. */
        out[VCPU_EBX] = (LINE / 8) << 8 | (cores > 255 ? 255 : cores) << 16 | (apic & 0xff) << 24;
        out[VCPU_ECX] = c->has.l1_ecx;
        out[VCPU_EDX] = c->has.l1_edx;
        break;
    case 2:
        /* One round; descriptors 2c (L1d 32 KiB, 8 ways), 30 (L1i 32 KiB,
         * 8 ways), 87 (L2 1 MiB, 8 ways), 64-byte lines: glibc reads each
         * cache size with one cpuid rather than a walk of leaf 4. Not 87
         * in eax's top byte: a register's bit 31 says it holds none. */
        out[VCPU_EAX] = 0x00302c01;
        out[VCPU_EBX] = 0x00000087;
        break;
    case 4:
        if (subleaf < sizeof caches / sizeof *caches) {
            const struct vcpu_cache *k = &caches[subleaf];
            unsigned core_ids = cores > 64 ? 64 : cores;
            out[VCPU_EAX] = k->type | k->level << 5 | 1u << 8 | (core_ids - 1) << 26;
            out[VCPU_EBX] = (k->ways - 1) << 22 | (k->line - 1);
            out[VCPU_ECX] = k->sets - 1;
        }
        break;
    case 0x0b:
        /* Topology: one thread per core, cores of one package. */
        out[VCPU_EDX] = apic;
        out[VCPU_ECX] = subleaf & 0xff;
        if (subleaf == 0) {
            out[VCPU_EBX] = 1;
            out[VCPU_ECX] |= 1u << 8;
        } else if (subleaf == 1) {
            out[VCPU_EAX] = bits_for(cores);
            out[VCPU_EBX] = cores & 0xffff;
            out[VCPU_ECX] |= 2u << 8;
        }
        break;
    case 0x80000000:
        out[VCPU_EAX] = MAX_EXTENDED;
        break;
    case 0x80000001:
        out[VCPU_ECX] = c->has.x1_ecx;
        out[VCPU_EDX] = c->has.x1_edx;
        break;
    case 0x80000002: case 0x80000003: case 0x80000004: {
        uint32_t brand[12];
        put_text(brand, VCPU_BRAND, 12);
        memcpy(out, brand + 4 * (leaf - 0x80000002), 4 * sizeof *out);
        break;
    }
    case 0x80000006:
        /* L2: size in KiB, 8 ways (encoded 6), line size. */
        out[VCPU_ECX] = (uint32_t)VCPU_L2_KB << 16 | 6u << 12 | LINE;
        break;
    case 0x80000008:
        /* 46 physical and 48 virtual address bits (ecx is AMD's). */
        out[VCPU_EAX] = 48u << 8 | 46;
        break;
    default:
        break;
    }
}
