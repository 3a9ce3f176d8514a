/* Unit tests for finding the instructions dsim rewrites (code/elf_code.c,
 * code/sites.c): decoding, byte patterns that are not instructions, and the
 * function tables of a real ELF file (this test's own binary); and the
 * virtual CPU cpuid tells (code/vcpu.c). */
#include <check.h>
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "code/elf_code.h"
#include "code/sites.h"
#include "code/vcpu.h"
#include "tests/unit/suite.h"

#define ALL (SITES_TSC | SITES_RANDOM)

START_TEST(test_decode_kinds)
{
	struct site s;
	static const uint8_t rdtsc[] = { 0x0f, 0x31 }, rdtscp[] = { 0x0f, 0x01, 0xf9 };
	static const uint8_t rdrand_r10[] = { 0x49, 0x0f, 0xc7, 0xf2 }, rdseed_edx[] = { 0x0f, 0xc7, 0xfa };
	static const uint8_t rdrand_ax[] = { 0x66, 0x0f, 0xc7, 0xf0 }, rdrand_rax[] = { 0x48, 0x0f, 0xc7, 0xf0 };
	ck_assert(site_decode(rdtsc, sizeof rdtsc, ALL, &s));
	ck_assert_uint_eq(s.kind, SITE_RDTSC);
	ck_assert_uint_eq(s.len, 2);
	ck_assert(site_decode(rdtscp, sizeof rdtscp, ALL, &s));
	ck_assert_uint_eq(s.kind, SITE_RDTSCP);
	ck_assert_uint_eq(s.len, 3);
	ck_assert(site_decode(rdrand_r10, sizeof rdrand_r10, ALL, &s));
	ck_assert_uint_eq(s.kind, SITE_RDRAND);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_uint_eq(s.reg, 10);
	ck_assert_uint_eq(s.width, 64);
	ck_assert(site_decode(rdseed_edx, sizeof rdseed_edx, ALL, &s));
	ck_assert_uint_eq(s.kind, SITE_RDSEED);
	ck_assert_uint_eq(s.reg, 2);
	ck_assert_uint_eq(s.width, 32);
	ck_assert(site_decode(rdrand_ax, sizeof rdrand_ax, ALL, &s));
	ck_assert_uint_eq(s.width, 16);
	ck_assert(site_decode(rdrand_rax, sizeof rdrand_rax, ALL, &s));
	ck_assert_uint_eq(s.reg, 0);
	ck_assert_uint_eq(s.width, 64);
	ck_assert_mem_eq(s.orig, rdrand_rax, 4);
	/* Only the kinds asked for. */
	ck_assert(!site_decode(rdrand_rax, sizeof rdrand_rax, SITES_TSC, &s));
	ck_assert(!site_decode(rdtsc, sizeof rdtsc, SITES_RANDOM, &s));
	static const uint8_t cpuid[] = { 0x0f, 0xa2 };
	ck_assert(!site_decode(cpuid, sizeof cpuid, ALL, &s));
	ck_assert(site_decode(cpuid, sizeof cpuid, SITES_CPUID, &s));
	ck_assert_uint_eq(s.kind, SITE_CPUID);
	ck_assert_uint_eq(s.len, 2);
	ck_assert_str_eq(site_kind_name(SITE_CPUID), "cpuid");
}
END_TEST

/* cpuid found in code among other instructions, and only when asked. */
START_TEST(test_cpuid_sites)
{
	/* mov eax, 0xa20f; cpuid; xor ecx, ecx; cpuid; ret */
	static const uint8_t code[] = { 0xb8, 0x0f, 0xa2, 0x00, 0x00, 0x0f, 0xa2, 0x31, 0xc9, 0x0f, 0xa2, 0xc3 };
	struct site_list l = { 0 };
	ck_assert_int_eq(sites_in_code(code, sizeof code, SITES_CPUID, &l), 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(l.v[0].off, 5);
	ck_assert_uint_eq(l.v[1].off, 9);
	site_list_free(&l);
	memset(&l, 0, sizeof l);
	ck_assert_int_eq(sites_in_code(code, sizeof code, ALL, &l), 0);
	ck_assert_uint_eq(l.n, 0);
	site_list_free(&l);
}
END_TEST

static void cpuid_of(const struct vcpu *c, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	vcpu_cpuid(c, leaf, sub, 0, out);
}

/* The model: vendor, brand, family, features, caches and topology. */
START_TEST(test_vcpu_model)
{
	struct vcpu c;
	uint32_t r[4];
	vcpu_init(&c, 4);
	cpuid_of(&c, 0, 0, r);
	ck_assert_uint_eq(r[VCPU_EAX], 0x0b);
	char vendor[13] = { 0 };
	memcpy(vendor, &r[VCPU_EBX], 4), memcpy(vendor + 4, &r[VCPU_EDX], 4), memcpy(vendor + 8, &r[VCPU_ECX], 4);
	ck_assert_str_eq(vendor, "GenuineIntel");
	char brand[49] = { 0 };
	for (unsigned i = 0; i < 3; i++) {
		cpuid_of(&c, 0x80000002 + i, 0, r);
		memcpy(brand + 16 * i, r, 16);
	}
	ck_assert_str_eq(brand, "dsim virtual CPU");
	cpuid_of(&c, 0x80000000, 0, r);
	ck_assert_uint_eq(r[VCPU_EAX], 0x80000008);
	cpuid_of(&c, 1, 0, r);
	ck_assert_uint_eq(r[VCPU_EAX], 0x600);
	ck_assert_uint_eq(r[VCPU_EBX], 8u << 8 | 4u << 16);
	/* x86-64-v2: SSE3, SSSE3, CMPXCHG16B, SSE4.1, SSE4.2, POPCNT, LAHF. */
	uint32_t v2 = 1u << 0 | 1u << 9 | 1u << 13 | 1u << 19 | 1u << 20 | 1u << 23;
	ck_assert_uint_eq(r[VCPU_ECX], v2);
	ck_assert(r[VCPU_EDX] & (1u << 26));                    /* SSE2 */
	ck_assert(!(r[VCPU_ECX] & (1u << 27 | 1u << 28 | 1u << 30 | 1u << 31)));  /* OSXSAVE, AVX, RDRAND, hypervisor */
	cpuid_of(&c, 0x80000001, 0, r);
	ck_assert_uint_eq(r[VCPU_ECX], 1);
	ck_assert_uint_eq(r[VCPU_EDX], 1u << 11 | 1u << 20 | 1u << 29);
	ck_assert(!(r[VCPU_EDX] & (1u << 27)));                 /* no rdtscp */
	cpuid_of(&c, 7, 0, r);
	ck_assert_uint_eq(r[VCPU_EAX] | r[VCPU_EBX] | r[VCPU_ECX] | r[VCPU_EDX], 0);
	/* Leaf 4: L1d, L1i, L2, then none; sizes as glibc computes them. */
	static const uint32_t sizes[] = { 32768, 32768, 1048576 }, types[] = { 1, 2, 3 }, levels[] = { 1, 1, 2 };
	for (uint32_t i = 0; i < 3; i++) {
		cpuid_of(&c, 4, i, r);
		ck_assert_uint_eq(r[VCPU_EAX] & 0x1f, types[i]);
		ck_assert_uint_eq((r[VCPU_EAX] >> 5) & 7, levels[i]);
		ck_assert_uint_eq((r[VCPU_EAX] >> 26) + 1, 4);
		uint32_t b = r[VCPU_EBX];
		ck_assert_uint_eq(((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * (r[VCPU_ECX] + 1), sizes[i]);
	}
	cpuid_of(&c, 4, 3, r);
	ck_assert_uint_eq(r[VCPU_EAX] & 0x1f, 0);
	/* sysfs's list is leaf 4's. */
	const struct vcpu_cache *k;
	ck_assert_uint_eq(vcpu_caches(&k), 3);
	for (uint32_t i = 0; i < 3; i++) {
		cpuid_of(&c, 4, i, r);
		ck_assert_uint_eq(k[i].type, r[VCPU_EAX] & 0x1f);
		ck_assert_uint_eq(k[i].ways * k[i].sets * k[i].line, sizes[i]);
	}
	ck_assert_str_eq(k[2].type_name, "Unified");
	/* Leaf 2: one round, no register marked empty (bit 31). */
	cpuid_of(&c, 2, 0, r);
	ck_assert_uint_eq(r[VCPU_EAX] & 0xff, 1);
	for (int i = 0; i < 4; i++) ck_assert(!(r[i] & 0x80000000u));
	/* Leaf 0xb: a thread per core, 4 cores (2 bits of APIC id). */
	cpuid_of(&c, 0xb, 0, r);
	ck_assert_uint_eq(r[VCPU_EBX], 1);
	ck_assert_uint_eq(r[VCPU_ECX], 0x100);
	cpuid_of(&c, 0xb, 1, r);
	ck_assert_uint_eq(r[VCPU_EAX], 2);
	ck_assert_uint_eq(r[VCPU_EBX], 4);
	ck_assert_uint_eq(r[VCPU_ECX], 0x201);
	cpuid_of(&c, 0xb, 2, r);
	ck_assert_uint_eq(r[VCPU_ECX] >> 8 & 0xff, 0);
	vcpu_cpuid(&c, 0xb, 0, 3, r);
	ck_assert_uint_eq(r[VCPU_EDX], 3);
	/* Leaves it lacks: zeros (no hypervisor leaf either). */
	static const uint32_t none[] = { 0x0d, 0x14, 0x40000000, 0x80000009, 0xc0000000 };
	for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
		cpuid_of(&c, none[i], 0, r);
		ck_assert_uint_eq(r[VCPU_EAX] | r[VCPU_EBX] | r[VCPU_ECX] | r[VCPU_EDX], 0);
	}
	/* Many CPUs: the 8-bit and 6-bit fields saturate. */
	vcpu_init(&c, 1024);
	cpuid_of(&c, 1, 0, r);
	ck_assert_uint_eq(r[VCPU_EBX] >> 16 & 0xff, 255);
	cpuid_of(&c, 4, 0, r);
	ck_assert_uint_eq(r[VCPU_EAX] >> 26, 63);
	cpuid_of(&c, 0xb, 1, r);
	ck_assert_uint_eq(r[VCPU_EAX], 10);
	ck_assert_uint_eq(r[VCPU_EBX], 1024);
	vcpu_init(&c, 0);
	ck_assert_uint_eq(c.cpus, 1);
	/* The auxiliary vector's hardware capabilities: leaf 1's edx, none more. */
	uint64_t v = 7;
	cpuid_of(&c, 1, 0, r);
	ck_assert(vcpu_auxv(&c, AT_HWCAP, &v));
	ck_assert_uint_eq(v, r[VCPU_EDX]);
	ck_assert(vcpu_auxv(&c, AT_HWCAP2, &v));
	ck_assert_uint_eq(v, 0);
	ck_assert(!vcpu_auxv(&c, AT_PAGESZ, &v));
}
END_TEST

/* A host that lacks instructions of the model: they are taken out (and
 * named); what only describes the system stays. */
START_TEST(test_vcpu_host_mask)
{
	struct vcpu c;
	char flags[512], missing[128];
	vcpu_init(&c, 2);
	vcpu_flags(&c, flags, sizeof flags);
	ck_assert_str_eq(flags, "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx "
				"fxsr sse sse2 ht syscall nx lm pni ssse3 cx16 sse4_1 sse4_2 popcnt lahf_lm");
	struct vcpu_mask all = { ~0u, ~0u, ~0u, ~0u };
	vcpu_mask_host(&c, &all, missing, sizeof missing);
	ck_assert_str_eq(missing, "");
	/* QEMU's qemu64: no SSSE3, SSE4.x or POPCNT, and no APIC bit here. */
	struct vcpu_mask qemu64 = { .l1_ecx = 1u << 0 | 1u << 13, .l1_edx = ~(1u << 9), .x1_ecx = 1, .x1_edx = ~0u };
	vcpu_mask_host(&c, &qemu64, missing, sizeof missing);
	ck_assert_str_eq(missing, "ssse3 sse4_1 sse4_2 popcnt");
	uint32_t r[4];
	cpuid_of(&c, 1, 0, r);
	ck_assert_uint_eq(r[VCPU_ECX], 1u << 0 | 1u << 13);
	ck_assert(r[VCPU_EDX] & (1u << 9));                     /* apic: not an instruction */
	vcpu_flags(&c, flags, sizeof flags);
	ck_assert_ptr_null(strstr(flags, "sse4_2"));
	ck_assert_ptr_nonnull(strstr(flags, "cx16 lahf_lm"));
	/* Short buffers: cut, terminated. */
	vcpu_flags(&c, flags, 8);
	ck_assert_str_eq(flags, "fpu vme");
	vcpu_init(&c, 2);
	vcpu_mask_host(&c, &qemu64, missing, 6);
	ck_assert_uint_eq(strlen(missing), 5);
}
END_TEST

/* Same opcode bytes, other instructions: cmpxchg16b (0f c7 /1), vmptrld
 * (0f c7 /6 with memory), ud2, and an rdtsc cut short. */
START_TEST(test_decode_others)
{
	struct site s;
	static const uint8_t cmpxchg16b[] = { 0x48, 0x0f, 0xc7, 0x0f }, vmptrld[] = { 0x0f, 0xc7, 0x30 };
	static const uint8_t ud2[] = { 0x0f, 0x0b }, short_rdtsc[] = { 0x0f };
	ck_assert(!site_decode(cmpxchg16b, sizeof cmpxchg16b, ALL, &s));
	ck_assert(!site_decode(vmptrld, sizeof vmptrld, ALL, &s));
	ck_assert(!site_decode(ud2, sizeof ud2, ALL, &s));
	ck_assert(!site_decode(short_rdtsc, sizeof short_rdtsc, ALL, &s));
}
END_TEST

/* rdtsc's bytes inside another instruction's immediate are not a site;
 * the real one after it is, and decoding goes on from one candidate to
 * the next. */
START_TEST(test_code_boundaries)
{
	static const uint8_t code[] = {
		0xb8, 0x0f, 0x31, 0x00, 0x00,       /* mov eax, 0x310f */
		0x0f, 0x31,                         /* rdtsc */
		0x48, 0xb8, 0x0f, 0x01, 0xf9, 0, 0, 0, 0, 0,  /* movabs rax, ...: rdtscp's bytes */
		0x48, 0x0f, 0xc7, 0xf1,             /* rdrand rcx */
		0x0f, 0x01, 0xf9,                   /* rdtscp */
		0xc3,
	};
	struct site_list l = { 0 };
	ck_assert_int_eq(sites_in_code(code, sizeof code, ALL, &l), 0);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_uint_eq(l.unverified, 0);
	ck_assert_uint_eq(l.v[0].off, 5);
	ck_assert_uint_eq(l.v[0].kind, SITE_RDTSC);
	ck_assert_uint_eq(l.v[1].off, 17);
	ck_assert_uint_eq(l.v[1].kind, SITE_RDRAND);
	ck_assert_uint_eq(l.v[1].reg, 1);
	ck_assert_uint_eq(l.v[2].off, 21);
	ck_assert_uint_eq(l.v[2].kind, SITE_RDTSCP);
	site_list_free(&l);
	/* Kinds not asked for are left alone. */
	ck_assert_int_eq(sites_in_code(code, sizeof code, SITES_RANDOM, &l), 0);
	ck_assert_uint_eq(l.n, 1);
	site_list_free(&l);
}
END_TEST

/* Functions of this binary, found through its tables. */
__attribute__((noinline, used)) unsigned long long dsim_probe_tsc(void)
{
	unsigned lo, hi;
	__asm__ volatile("mov $0x310f, %%eax" ::: "eax");      /* rdtsc's bytes as an immediate */
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (unsigned long long)hi << 32 | lo;
}

__attribute__((noinline, used)) unsigned long long dsim_probe_random(void)
{
	unsigned long long v;
	__asm__ volatile("rdrand %0" : "=r"(v) : : "cc");
	return v;
}

static uint8_t *map_self(size_t *len)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat st;
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	uint8_t *img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(img, MAP_FAILED);
	close(fd);
	*len = (size_t)st.st_size;
	return img;
}

static bool has_start(const struct elf_code *c, uint64_t off)
{
	for (size_t i = 0; i < c->nstarts; i++)
		if (c->starts[i] == off) return true;
	return false;
}

START_TEST(test_own_binary)
{
	size_t len;
	uint8_t *img = map_self(&len);
	struct elf_code c;
	ck_assert_int_eq(elf_code_read(img, len, &c), 0);
	ck_assert_uint_ge(c.nranges, 1);
	int64_t tsc = elf_symbol_offset(img, len, "dsim_probe_tsc");
	int64_t rnd = elf_symbol_offset(img, len, "dsim_probe_random");
	ck_assert_int_gt(tsc, 0);
	ck_assert_int_gt(rnd, 0);
	ck_assert(has_start(&c, (uint64_t)tsc));
	ck_assert(has_start(&c, (uint64_t)rnd));
	for (size_t i = 1; i < c.nstarts; i++) ck_assert_uint_lt(c.starts[i - 1], c.starts[i]);
	struct site_list l = { 0 };
	ck_assert_int_eq(sites_in_elf(img, len, &c, ALL, &l), 0);
	size_t in_tsc = 0, in_rnd = 0;
	/* Each function's bytes: up to the other one if it follows closely. */
	uint64_t tsc_end = (uint64_t)tsc + 64, rnd_end = (uint64_t)rnd + 64;
	if (rnd > tsc && (uint64_t)rnd < tsc_end) tsc_end = (uint64_t)rnd;
	if (tsc > rnd && (uint64_t)tsc < rnd_end) rnd_end = (uint64_t)tsc;
	for (size_t i = 0; i < l.n; i++) {
		/* Each site is the instruction its bytes say. */
		struct site s;
		ck_assert(site_decode(img + l.v[i].off, 16, ALL, &s));
		ck_assert_uint_eq(s.kind, l.v[i].kind);
		if (l.v[i].off >= (uint64_t)tsc && l.v[i].off < tsc_end) {
			in_tsc++;
			ck_assert_uint_eq(l.v[i].kind, SITE_RDTSC);
			ck_assert_uint_eq(img[l.v[i].off - 1], 0x00);  /* after the mov's immediate, not inside it */
		}
		if (l.v[i].off >= (uint64_t)rnd && l.v[i].off < rnd_end) {
			in_rnd++;
			ck_assert_uint_eq(l.v[i].kind, SITE_RDRAND);
		}
	}
	ck_assert_uint_eq(in_tsc, 1);
	ck_assert_uint_eq(in_rnd, 1);
	ck_assert_int_eq(elf_symbol_offset(img, len, "no_such_function_here"), -1);
	site_list_free(&l);
	elf_code_free(&c);
	munmap(img, len);
}
END_TEST

/* The files are the untrusted program's: truncated or corrupted images
 * are refused or read without going outside them (ASan in CI). */
START_TEST(test_hostile_images)
{
	size_t len;
	uint8_t *img = map_self(&len);
	uint8_t *copy = malloc(len);
	struct elf_code c;
	ck_assert_int_eq(elf_code_read(img, 16, &c), -1);
	ck_assert_int_eq(elf_code_read((const uint8_t *)"not an ELF file at all, no", 26, &c), -1);
	for (size_t cut = 64; cut < len; cut += len / 61 + 1) {
		memcpy(copy, img, cut);
		if (elf_code_read(copy, cut, &c) == 0) {
			struct site_list l = { 0 };
			sites_in_elf(copy, cut, &c, ALL, &l);
			site_list_free(&l);
			elf_code_free(&c);
		}
		elf_symbol_offset(copy, cut, "dsim_probe_tsc");
	}
	unsigned seed = 7;
	for (int round = 0; round < 200; round++) {
		memcpy(copy, img, len);
		for (int k = 0; k < 64; k++) {              /* scribble over the headers and tables */
			seed = seed * 1103515245 + 12345;
			size_t at = (seed >> 8) % (len < 65536 ? len : 65536);
			copy[at] = (uint8_t)(seed >> 3);
		}
		if (elf_code_read(copy, len, &c) == 0) {
			struct site_list l = { 0 };
			sites_in_elf(copy, len, &c, ALL, &l);
			site_list_free(&l);
			elf_code_free(&c);
		}
		elf_symbol_offset(copy, len, "dsim_probe_tsc");
	}
	free(copy);
	munmap(img, len);
}
END_TEST

int main(void)
{
	return RUN_TESTS("code", test_decode_kinds, test_decode_others, test_code_boundaries,
			 test_own_binary, test_hostile_images, test_cpuid_sites, test_vcpu_model, test_vcpu_host_mask);
}
