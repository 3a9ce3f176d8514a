/* Reads the CPU's clock and random numbers without a system call: rdtsc,
 * rdtscp, rdrand and rdseed, in the main thread, in a second thread and in
 * a forked child (which inherits the parent's code). Under dsim every value
 * is the seed's: the TSC counts virtual nanoseconds, the random numbers come
 * from the machine's entropy. */
#include <cpuid.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static uint64_t rdtscp(uint32_t *aux)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(*aux));
    return (uint64_t)hi << 32 | lo;
}

/* rdrand into r10 (a REX-prefixed form), rdseed into a 32-bit register. */
static int rdrand64(uint64_t *v)
{
    unsigned char ok;
    register uint64_t r10 __asm__("r10");
    __asm__ volatile("rdrand %0; setc %1" : "=r"(r10), "=qm"(ok) : : "cc");
    *v = r10;
    return ok;
}

static int rdseed32(uint32_t *v)
{
    unsigned char ok;
    __asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
    return ok;
}

static int rdrand16(uint16_t *v)
{
    unsigned char ok;
    __asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
    return ok;
}

static int has_rdrand, has_rdseed;

static void report(const char *who)
{
    uint32_t aux;
    uint64_t t1 = rdtsc(), t2 = rdtscp(&aux);
    printf("%s rdtsc_moves %d\n", who, t2 > t1);
    printf("%s rdtsc %llu\n", who, (unsigned long long)t1);
    printf("%s rdtscp %llu aux %u\n", who, (unsigned long long)t2, aux);
    if (has_rdrand) {
        uint64_t r = 0;
        uint16_t s = 0;
        int ok = rdrand64(&r), ok16 = rdrand16(&s);
        printf("%s rdrand %d %016llx\n", who, ok, (unsigned long long)r);
        printf("%s rdrand16 %d %04x\n", who, ok16, s);
    } else {
        printf("%s rdrand unsupported\n", who);
    }
    if (has_rdseed) {
        uint32_t r = 0;
        int ok = rdseed32(&r);
        printf("%s rdseed %d %08x\n", who, ok, r);
    } else {
        printf("%s rdseed unsupported\n", who);
    }
    fflush(stdout);
}

static void *thread_main(void *arg)
{
    report("thread");
    return arg;
}

int main(int argc, char **argv)
{
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d)) has_rdrand = (c >> 30) & 1;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) has_rdseed = (b >> 18) & 1;
    /* Under dsim rdrand and rdseed never reach the CPU: use them even where
     * CPUID does not offer them (hypervisors hide rdseed). */
    if (argc > 1 && !strcmp(argv[1], "--all")) has_rdrand = has_rdseed = 1;
    report("main");
    pthread_t th;
    pthread_create(&th, NULL, thread_main, NULL);
    pthread_join(th, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        report("child");
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    printf("child status %d\n", status);
    return 0;
}
