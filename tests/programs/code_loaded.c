/* Code that becomes executable after the program starts: a library loaded
 * with dlopen (an mmap with PROT_EXEC), and the same file mapped read-only
 * and then made executable with mprotect. Under dsim both read the
 * machine's TSC and entropy. Usage: code_loaded LIB.so */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef uint64_t (*reader)(void);

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    reader tsc = (reader)dlsym(lib, "lib_rdtsc"), rnd = (reader)dlsym(lib, "lib_rdrand");
    if (!tsc || !rnd) return 1;
    uint64_t t1 = tsc(), t2 = tsc();
    printf("dlopen rdtsc %llu moves %d\n", (unsigned long long)t1, t2 > t1);
    printf("dlopen rdrand %016llx\n", (unsigned long long)rnd());

    /* The same functions, from a private read-only mapping of the file made
     * executable afterwards. A function's file offset is its offset from
     * the library's base (gcc lays shared objects out so). */
    Dl_info info;
    if (!dladdr((void *)tsc, &info)) return 1;
    uintptr_t off_tsc = (uintptr_t)tsc - (uintptr_t)info.dli_fbase;
    uintptr_t off_rnd = (uintptr_t)rnd - (uintptr_t)info.dli_fbase;
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) return 1;
    uint8_t *copy = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (copy == MAP_FAILED || mprotect(copy, (size_t)st.st_size, PROT_READ | PROT_EXEC)) return 1;
    reader tsc2 = (reader)(copy + off_tsc), rnd2 = (reader)(copy + off_rnd);
    uint64_t t3 = tsc2();
    printf("mprotect rdtsc %llu after %d\n", (unsigned long long)t3, t3 > t2);
    printf("mprotect rdrand %016llx\n", (unsigned long long)rnd2());
    return 0;
}
