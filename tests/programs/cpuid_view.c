/* What a program learns of its CPU without a system call: cpuid's leaves
 * (in main, in a thread, in a forked child, after an exec of itself, in
 * code loaded with dlopen), what glibc chose from them (sysconf's cache
 * sizes, __builtin_cpu_supports) and cpuid's mode (arch_prctl). Under dsim
 * every line is the virtual CPU's, the same on every host; natively, the
 * host's. "cpuid_view exec" is the exec'd copy; "cpuid_view LIB" also
 * calls LIB's cpuid_leaf0_ebx (tests/programs/cpuid_lib.c). */
#include <asm/prctl.h>
#include <cpuid.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void leaf(const char *who, unsigned l, unsigned sub)
{
    unsigned a, b, c, d;
    __cpuid_count(l, sub, a, b, c, d);
    printf("%s leaf %x.%u %08x %08x %08x %08x\n", who, l, sub, a, b, c, d);
}

static void vendor_brand(const char *who)
{
    unsigned r[12], a;
    __cpuid(0, a, r[0], r[2], r[1]);
    char vendor[13] = { 0 };
    memcpy(vendor, r, 12);
    printf("%s vendor %s max %u\n", who, vendor, a);
    for (unsigned i = 0; i < 3; i++) __cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
    char brand[49] = { 0 };
    memcpy(brand, r, 48);
    printf("%s brand %s\n", who, brand);
}

static void all_leaves(const char *who)
{
    vendor_brand(who);
    static const unsigned leaves[][2] = { { 1, 0 }, { 2, 0 }, { 4, 0 }, { 4, 1 }, { 4, 2 }, { 4, 3 }, { 7, 0 },
                                          { 0xb, 0 }, { 0xb, 1 }, { 0xd, 0 }, { 0x80000000, 0 },
                                          { 0x80000001, 0 }, { 0x80000006, 0 }, { 0x80000008, 0 } };
    for (size_t i = 0; i < sizeof leaves / sizeof *leaves; i++) leaf(who, leaves[i][0], leaves[i][1]);
}

static void *thread_main(void *arg)
{
    (void)arg;
    leaf("thread", 1, 0);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "exec")) {
        all_leaves("exec");
        return 0;
    }
    all_leaves("main");
    printf("sysconf L1d %ld assoc %ld line %ld L1i %ld L2 %ld L3 %ld\n", sysconf(_SC_LEVEL1_DCACHE_SIZE),
           sysconf(_SC_LEVEL1_DCACHE_ASSOC), sysconf(_SC_LEVEL1_DCACHE_LINESIZE), sysconf(_SC_LEVEL1_ICACHE_SIZE),
           sysconf(_SC_LEVEL2_CACHE_SIZE), sysconf(_SC_LEVEL3_CACHE_SIZE));
    __builtin_cpu_init();
    printf("supports sse4.2 %d popcnt %d avx %d avx2 %d\n", !!__builtin_cpu_supports("sse4.2"),
           !!__builtin_cpu_supports("popcnt"), !!__builtin_cpu_supports("avx"), !!__builtin_cpu_supports("avx2"));
    long got = syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0);
    printf("arch_prctl get_cpuid %ld\n", got);
    /* Turning cpuid back on must not show the host's CPU. */
    long set = syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1);
    printf("arch_prctl set_cpuid 1: %s\n", set == 0 ? "0" : strerror(errno));
    vendor_brand("after set");
    fflush(stdout);

    pthread_t th;
    pthread_create(&th, NULL, thread_main, NULL);
    pthread_join(th, NULL);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        leaf("child", 1, 0);
        fflush(stdout);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (argc > 1) {
        void *h = dlopen(argv[1], RTLD_NOW);
        unsigned (*fn)(void) = h ? (unsigned (*)(void))dlsym(h, "cpuid_leaf0_ebx") : NULL;
        printf("dlopen leaf0 ebx %08x\n", fn ? fn() : 0);
        fflush(stdout);
    }
    pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
        _exit(127);
    }
    waitpid(pid, &status, 0);
    printf("exec status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
