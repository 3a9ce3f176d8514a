/* Unit tests for finding the instructions dsim rewrites (code/elf_code.c,
 * code/sites.c): decoding, byte patterns that are not instructions, and the
 * function tables of a real ELF file (this test's own binary). */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "code/elf_code.h"
#include "code/sites.h"
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
			 test_own_binary, test_hostile_images);
}
