/* The auxiliary vector two ways: the process's own copy (on its stack,
 * past the environment, where getauxval reads it) and /proc/self/auxv
 * (what the kernel shows). Prints the hardware capabilities, whether a
 * vDSO is named, and whether the two agree on each entry. */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

extern char **environ;

static uint64_t lookup(const uint64_t *v, size_t n, uint64_t type)
{
    for (size_t i = 0; i + 1 < n && v[i] != AT_NULL; i += 2)
        if (v[i] == type) return v[i + 1];
    return 0;
}

int main(void)
{
    uint64_t file[2 * 64];
    int fd = open("/proc/self/auxv", O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, file, sizeof file);
    if (n <= 0 || n % 16) {
        printf("auxv unreadable\n");
        return 1;
    }
    char **e = environ;
    while (*e) e++;
    const uint64_t *own = (const uint64_t *)(e + 1);
    static const struct { uint64_t type; const char *name; } keys[] = {
        { AT_HWCAP, "AT_HWCAP" }, { AT_HWCAP2, "AT_HWCAP2" }, { AT_SYSINFO_EHDR, "AT_SYSINFO_EHDR" },
        { AT_PAGESZ, "AT_PAGESZ" }, { AT_CLKTCK, "AT_CLKTCK" }, { AT_RANDOM, "AT_RANDOM" },
    };
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        uint64_t in_file = lookup(file, (size_t)n / 8, keys[k].type), mine = lookup(own, 2 * 64, keys[k].type);
        if (keys[k].type == AT_HWCAP || keys[k].type == AT_HWCAP2)
            printf("%s %llx\n", keys[k].name, (unsigned long long)mine);
        if (keys[k].type == AT_SYSINFO_EHDR) printf("vdso %s\n", mine ? "named" : "hidden");
        printf("%s %s\n", keys[k].name, in_file == mine ? "agrees" : "differs");
    }
    return 0;
}
