/* The instructions that read the world outside the simulation without a
 * system call: rdtsc and rdtscp (the CPU's clock), rdrand and rdseed (its
 * random numbers), cpuid (the CPU itself: code/vcpu.h). Found in a file's code by decoding with Zydis from known
 * instruction starts (code/elf_code.h), so only true instructions are
 * rewritten. Pure: no tracee, no ptrace. */
#ifndef DSIM_SITES_H
#define DSIM_SITES_H
#include "code/elf_code.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum site_kind { SITE_RDTSC = 1, SITE_RDTSCP, SITE_RDRAND, SITE_RDSEED, SITE_CPUID };
#define SITE_KIND_LAST SITE_CPUID
#define SITE_BIT(k) (1u << (k))
#define SITES_TSC (SITE_BIT(SITE_RDTSC) | SITE_BIT(SITE_RDTSCP))
#define SITES_RANDOM (SITE_BIT(SITE_RDRAND) | SITE_BIT(SITE_RDSEED))
#define SITES_CPUID SITE_BIT(SITE_CPUID)

struct site {
    uint64_t off;       /* file offset (or offset in the code given) */
    uint8_t len;        /* the instruction's length, prefixes included */
    uint8_t kind;       /* enum site_kind */
    uint8_t reg;        /* rdrand/rdseed: destination, 0 = rax ... 15 = r15 */
    uint8_t width;      /* rdrand/rdseed: operand width in bits (16, 32, 64) */
    uint8_t orig[4];    /* the first bytes, to check before and after patching */
};

/* What replaces a site: ud2 (0f 0b), which raises SIGILL at the site's
 * address, then the rest of the original bytes, never executed (the trap's
 * answer skips the whole instruction). */
#define SITE_TRAP_0 0x0f
#define SITE_TRAP_1 0x0b

struct site_list {
    struct site *v;
    size_t n, cap;
    size_t unverified;  /* byte patterns of these instructions that did not
                         * decode as one from a known start: left alone */
};

/* Appends the sites of the kinds in `kinds` (SITE_BIT mask) found in the
 * ELF image's code. 0, or -1 if memory ran out. */
int sites_in_elf(const uint8_t *img, size_t len, const struct elf_code *c, unsigned kinds, struct site_list *out);
/* The same for bare code decoded from its first byte. */
int sites_in_code(const uint8_t *code, size_t len, unsigned kinds, struct site_list *out);
void site_list_free(struct site_list *l);

/* Decodes one instruction at `bytes`: true and *s filled (off 0) if it is
 * one of `kinds`. For the rdtsc fault path, which reads the bytes at rip. */
bool site_decode(const uint8_t *bytes, size_t n, unsigned kinds, struct site *s);

const char *site_kind_name(unsigned kind);
#endif
