/* Where an ELF file's code lies and where its instructions are known to
 * begin: what the rewriter (code/sites.h) needs to decode only true
 * instruction boundaries. Pure: works on a file's bytes in memory, and
 * never reads outside them (the files are the untrusted program's). */
#ifndef DSIM_ELF_CODE_H
#define DSIM_ELF_CODE_H
#include <stddef.h>
#include <stdint.h>

/* File bytes a loader maps executable, as file offsets: a mapping names a
 * file and an offset, so everything here is in offsets, not addresses. */
struct code_range { uint64_t off, len; };

struct elf_code {
    struct code_range *ranges;
    size_t nranges;
    /* Sorted, unique file offsets where an instruction starts: function
     * entries from .symtab and .dynsym, from the unwind table
     * (.eh_frame_hdr) and from Go's function table (.gopclntab), the
     * executable sections' starts and the entry point. */
    uint64_t *starts;
    size_t nstarts;
};

/* 0, or -1 if img is not a 64-bit little-endian x86-64 ELF file (or
 * memory ran out). A file without any function table still gets its
 * sections' starts. */
int elf_code_read(const uint8_t *img, size_t len, struct elf_code *out);
void elf_code_free(struct elf_code *c);

/* The file offset of the function symbol `name` in .dynsym or .symtab,
 * or -1. */
int64_t elf_symbol_offset(const uint8_t *img, size_t len, const char *name);
/* The same, and its size (st_size) in *size. */
int64_t elf_symbol_find(const uint8_t *img, size_t len, const char *name, uint64_t *size);
/* Calls fn for each function symbol of .dynsym and .symtab that has an
 * address in the file: its name, where the name's bytes are in img (0 for
 * no name), its code's file offset and size, until fn returns nonzero.
 * 1 if fn stopped it, 0, or -1 if img has no section table. */
typedef int elf_function_fn(void *arg, const char *name, size_t name_off, int64_t off, uint64_t size);
int elf_each_function(const uint8_t *img, size_t len, elf_function_fn *fn, void *arg);
#endif
