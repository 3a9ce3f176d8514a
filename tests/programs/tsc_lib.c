/* A shared library whose functions read the TSC and the CPU's random
 * numbers: loaded with dlopen, or mapped by hand and made executable with
 * mprotect (code_loaded.c). No calls, no data: it runs wherever it is
 * mapped. */
#include <stdint.h>

uint64_t lib_rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

uint64_t lib_rdrand(void)
{
    uint64_t v;
    __asm__ volatile("1: rdrand %0; jnc 1b" : "=r"(v) : : "cc");
    return v;
}
