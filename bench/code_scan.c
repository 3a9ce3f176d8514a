/* code_scan FILE...: what finding the sites to rewrite costs per file
 * (code/elf_code.c + code/sites.c, as dsim does once per file per
 * process): the ELF's function tables, the scan and the decoding. Best of
 * 5 runs per file, the file already in the page cache. */
#include "code/elf_code.h"
#include "code/sites.h"
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        int fd = open(argv[i], O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st)) { perror(argv[i]); return 1; }
        const uint8_t *img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (img == MAP_FAILED) { perror(argv[i]); return 1; }
        double best = 1e9;
        size_t starts = 0, sites = 0, unverified = 0, code = 0;
        for (int run = 0; run < 5; run++) {
            double t0 = now_ms();
            struct elf_code c;
            struct site_list l = { 0 };
            if (elf_code_read(img, (size_t)st.st_size, &c) != 0) { fprintf(stderr, "%s: not an x86-64 ELF file\n", argv[i]); return 1; }
            sites_in_elf(img, (size_t)st.st_size, &c, SITES_TSC | SITES_RANDOM, &l);
            double t = now_ms() - t0;
            if (t < best) best = t;
            starts = c.nstarts, sites = l.n, unverified = l.unverified, code = 0;
            for (size_t r = 0; r < c.nranges; r++) code += c.ranges[r].len;
            site_list_free(&l);
            elf_code_free(&c);
        }
        printf("%-48s %7.1f MB code %7zu starts %3zu sites %2zu unverified %8.2f ms %7.0f MB/s\n", argv[i],
               code / 1e6, starts, sites, unverified, best, code / 1e3 / best);
        munmap((void *)img, (size_t)st.st_size);
    }
    return 0;
}
