/* A shared library that runs cpuid, loaded with dlopen by cpuid_view.c:
 * code mapped after the program started is answered as the program's. */
#include <cpuid.h>

unsigned cpuid_leaf0_ebx(void)
{
    unsigned a, b, c, d;
    __cpuid(0, a, b, c, d);
    return b;
}
