/* The CPU a machine's programs see through cpuid and /proc/cpuinfo: one
 * fixed model, the same on every host, so that what a program picks by
 * its CPU (glibc's string functions and cache sizes, a runtime's code
 * paths, what it prints) does not depend on where a seed runs.
 *
 * "dsim virtual CPU": GenuineIntel family 6 model 0, the x86-64-v2 feature
 * set (SSE4.2, POPCNT, CMPXCHG16B, LAHF in 64-bit mode) and nothing newer:
 * no XSAVE, AVX or RDRAND; cpus cores of one package, no SMT, each with 32
 * KiB L1 data and instruction caches and 1 MiB of L2, no L3. A feature the
 * host lacks is taken out (a program told of it would fault), which
 * `dsim doctor` names. Pure: no tracee. */
#ifndef DSIM_VCPU_H
#define DSIM_VCPU_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { VCPU_EAX, VCPU_EBX, VCPU_ECX, VCPU_EDX };

/* Which of the model's features the host has (vcpu_host_mask), as the four
 * feature words cpuid's leaves 1 and 0x80000001 give in ecx and edx. */
struct vcpu_mask { uint32_t l1_ecx, l1_edx, x1_ecx, x1_edx; };

struct vcpu {
    unsigned cpus;          /* cores, from the config's `cpus` (1..1024) */
    struct vcpu_mask has;   /* the model's features this host has */
};

/* The model for `cpus` cores, every feature present. */
void vcpu_init(struct vcpu *c, unsigned cpus);

/* Takes out of c the features the host's cpuid words lack (leaf 1 ecx,
 * edx; 0x80000001 ecx, edx): their names, space-separated, go in
 * missing (empty if none). */
void vcpu_mask_host(struct vcpu *c, const struct vcpu_mask *host, char *missing, size_t len);

/* cpuid(leaf, subleaf) executed on core `cpu` (its APIC id): out[VCPU_EAX..VCPU_EDX].
 * A leaf past the model's highest gives zeros. */
void vcpu_cpuid(const struct vcpu *c, uint32_t leaf, uint32_t subleaf, unsigned cpu, uint32_t out[4]);

/* One core's caches, in leaf 4's order (and sysfs's cpuN/cache/indexK). */
struct vcpu_cache {
    unsigned type;          /* leaf 4's: 1 data, 2 instruction, 3 unified */
    const char *type_name;  /* sysfs's: Data, Instruction, Unified */
    unsigned level, ways, sets, line;
};
size_t vcpu_caches(const struct vcpu_cache **out);

/* An auxiliary vector entry the virtual CPU decides: AT_HWCAP (leaf 1's
 * edx) and AT_HWCAP2 (0: no ring-3 MWAIT, no FSGSBASE). True and *value
 * for those types. */
bool vcpu_auxv(const struct vcpu *c, uint64_t type, uint64_t *value);

/* The flags line of /proc/cpuinfo, as Linux names and orders them. */
void vcpu_flags(const struct vcpu *c, char *buf, size_t len);

/* Vendor and brand, as cpuid tells them (and /proc/cpuinfo). */
#define VCPU_VENDOR "GenuineIntel"
#define VCPU_BRAND "dsim virtual CPU"
#define VCPU_FAMILY 6
#define VCPU_MODEL 0
#define VCPU_STEPPING 0
#define VCPU_L2_KB 1024
#endif
