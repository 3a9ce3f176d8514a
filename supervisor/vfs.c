/* The files and directories a machine sees in place of the host's: what
 * would tell hosts apart (the CPU, memory, kernel, tunables a host sets)
 * or runs apart (boot id, load), Linux 6.1's texts for a machine of the
 * config's cpus and memory. They depend on the config alone, so they are
 * written once per process (a sweep's seeds share them) into a directory
 * of their own, made and locked as a run directory is (rundir.h), and
 * bound read-only at every machine start (supervisor/machine.c). Written
 * per seed they cost ~1 ms of a short seed's ~7 (75 files, on tmpfs). */
#include "supervisor/vfs.h"
#include "supervisor/rundir.h"
#include "net/sim/netsim.h"
#include <xxhash.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The host facts a machine must not see, replaced by fixed files (or
 * directories) of the shared directory's vfs/. */
struct vfile { const char *target; const char *name; };
static const struct vfile vfiles[] = {
    { "/proc/cpuinfo", "cpuinfo" },
    { "/proc/meminfo", "meminfo" },
    { "/proc/sys/kernel/random/boot_id", "boot_id" },
    { "/proc/stat", "stat" },
    { "/proc/loadavg", "loadavg" },
    /* Directories: the CPUs (as many as the machine's, no frequencies, a
     * core each), transparent huge pages and the clock source as Debian's
     * 6.1 kernel has them; hosts tune them or differ (Redis warns of THP
     * "always", Node reads a laptop's CPU frequencies). */
    { "/sys/devices/system/cpu", "cpu" },
    { "/sys/kernel/mm/transparent_hugepage", "thp" },
    { "/sys/devices/system/clocksource/clocksource0", "clocksource" },
    /* The host's firmware (its memory map, ACPI tables) and, where it has
     * them, its DMI names and serial numbers (root reads those): empty. */
    { "/sys/firmware", "empty" },
    { "/sys/devices/virtual/dmi", "empty" },
    { "/etc/hosts", "hosts" },
    { "/etc/resolv.conf", "resolv.conf" },
    { "/proc/version", "version" },
    { "/proc/sys/kernel/osrelease", "osrelease" },
    { "/proc/sys/kernel/version", "kversion" },
    /* Global sysctls hosts tune (Redis warns of overcommit_memory 0, and
     * a new pid namespace shows pid_max since Linux 6.14) or that follow
     * the host's memory: Linux's defaults, for the machine's memory. */
    { "/proc/sys/kernel/pid_max", "pid_max" },
    { "/proc/sys/kernel/threads-max", "threads_max" },
    { "/proc/sys/kernel/cap_last_cap", "cap_last_cap" },
    { "/proc/sys/fs/file-max", "file_max" },
    { "/proc/sys/fs/nr_open", "nr_open" },
    { "/proc/sys/vm/overcommit_memory", "overcommit_memory" },
    { "/proc/sys/vm/overcommit_ratio", "overcommit_ratio" },
    { "/proc/sys/vm/max_map_count", "max_map_count" },
    { "/proc/cmdline", "cmdline" },
    /* The socket sysctls a machine's sockets follow (net/sim/netsim.h,
     * syscalls/sockopt.c), not the host's: a new network namespace takes
     * TCP's buffers and congestion control from the host's. */
    { "/proc/sys/net/core/wmem_default", "wmem_default" },
    { "/proc/sys/net/core/rmem_default", "rmem_default" },
    { "/proc/sys/net/core/wmem_max", "wmem_max" },
    { "/proc/sys/net/core/rmem_max", "rmem_max" },
    { "/proc/sys/net/ipv4/tcp_rmem", "tcp_rmem" },
    { "/proc/sys/net/ipv4/tcp_wmem", "tcp_wmem" },
    { "/proc/sys/net/ipv4/tcp_congestion_control", "tcp_cc" },
    { "/proc/sys/net/ipv4/tcp_available_congestion_control", "tcp_cc_list" },
    { "/proc/sys/net/ipv4/tcp_allowed_congestion_control", "tcp_cc_list" },
};

/* The texts, by path under vfs/ (slashes make directories; a name that
 * ends in one is an empty directory), in memory until they are written. */
struct tree {
    size_t n, cap;
    struct { char *name, *text; } *files;
};

static void put(struct tree *t, const char *name, const char *text)
{
    if (t->n == t->cap && !(t->files = realloc(t->files, (t->cap = t->cap ? 2 * t->cap : 64) * sizeof *t->files)))
        abort();
    if (!(t->files[t->n].name = strdup(name)) || !(t->files[t->n].text = strdup(text))) abort();
    t->n++;
}

static void tree_free(struct tree *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->files[i].name);
        free(t->files[i].text);
    }
    free(t->files);
}

/* Linux 6.1's /proc/meminfo, every field in its order (programs look for
 * Hugepagesize, Shmem, Committed_AS ...), for an idle machine of `memory`
 * bytes with half of them free and no swap. */
static const char *meminfo_text(const struct world *w, char *buf, size_t len)
{
    unsigned long long kb = w->conf->memory_bytes / 1024;
    static const char *const zero[] = {
        "Buffers", "Cached", "SwapCached", "Active", "Inactive", "Active(anon)", "Inactive(anon)",
        "Active(file)", "Inactive(file)", "Unevictable", "Mlocked", "SwapTotal", "SwapFree", "Zswap",
        "Zswapped", "Dirty", "Writeback", "AnonPages", "Mapped", "Shmem", "KReclaimable", "Slab",
        "SReclaimable", "SUnreclaim", "KernelStack", "PageTables", "SecPageTables", "NFS_Unstable", "Bounce",
        "WritebackTmp",
    };
    size_t off = (size_t)snprintf(buf, len, "MemTotal:       %8llu kB\nMemFree:        %8llu kB\n"
                                  "MemAvailable:   %8llu kB\n", kb, kb / 2, kb / 2);
    for (size_t i = 0; i < sizeof zero / sizeof *zero && off < len; i++) {
        char field[32];
        snprintf(field, sizeof field, "%s:", zero[i]);
        off += (size_t)snprintf(buf + off, len - off, "%-16s%8d kB\n", field, 0);
    }
    if (off < len)
        snprintf(buf + off, len - off,
                 "CommitLimit:    %8llu kB\nCommitted_AS:          0 kB\nVmallocTotal:   34359738367 kB\n"
                 "VmallocUsed:           0 kB\nVmallocChunk:          0 kB\nPercpu:                0 kB\n"
                 "HardwareCorrupted:     0 kB\nAnonHugePages:         0 kB\nShmemHugePages:        0 kB\n"
                 "ShmemPmdMapped:        0 kB\nFileHugePages:         0 kB\nFilePmdMapped:         0 kB\n"
                 "HugePages_Total:       0\nHugePages_Free:        0\nHugePages_Rsvd:        0\n"
                 "HugePages_Surp:        0\nHugepagesize:       2048 kB\nHugetlb:               0 kB\n"
                 "DirectMap4k:      %8llu kB\nDirectMap2M:           0 kB\n", kb / 2, kb);
    return buf;
}

/* The mask of CPUs first..last as the kernel prints a mask of nbits: hex
 * words of 32 bits from the top, comma-separated, the first as wide as
 * its bits need. */
static void cpu_mask(char *out, size_t len, unsigned nbits, unsigned first, unsigned last)
{
    size_t off = 0;
    unsigned words = (nbits + 31) / 32;
    for (unsigned k = words; k-- > 0 && off + 10 < len;) {
        unsigned bits = k == words - 1 && nbits % 32 ? nbits % 32 : 32, word = 0;
        for (unsigned c = first; c <= last; c++)
            if (c / 32 == k) word |= 1u << (c % 32);
        off += (size_t)snprintf(out + off, len - off, "%s%0*x", k == words - 1 ? "" : ",", (int)(bits + 3) / 4, word);
    }
    snprintf(out + off, len - off, "\n");
}

/* A set of CPUs first..last as a list (at list) and a mask (at mask). */
static void put_set(struct tree *tr, unsigned n, const char *list_at, const char *mask_at, unsigned first,
                    unsigned last)
{
    char list[32], mask[400];   /* 1024 CPUs: 32 words */
    snprintf(list, sizeof list, first == last ? "%u\n" : "%u-%u\n", first, last);
    cpu_mask(mask, sizeof mask, n, first, last);
    put(tr, list_at, list);
    put(tr, mask_at, mask);
}

/* One of cpuN/topology's sets. */
static void put_cpu_set(struct tree *tr, unsigned n, unsigned cpu, const char *set,
                         unsigned first, unsigned last)
{
    char list[96], mask[96];
    snprintf(list, sizeof list, "cpu/cpu%u/topology/%s_list", cpu, set);
    snprintf(mask, sizeof mask, "cpu/cpu%u/topology/%s", cpu, set);
    put_set(tr, n, list, mask, first, last);
}

/* cpuN/cache: the virtual CPU's caches (code/vcpu.h), each the core's own. */
static void put_cpu_caches(struct tree *tr, unsigned n, unsigned cpu)
{
    const struct vcpu_cache *k;
    size_t nk = vcpu_caches(&k);
    char name[96], list[96], mask[96], text[32];
    snprintf(name, sizeof name, "cpu/cpu%u/cache/uevent", cpu);
    put(tr, name, "");
    for (size_t i = 0; i < nk; i++) {
        const struct { const char *file; unsigned value; } nums[] = {
            { "level", k[i].level }, { "ways_of_associativity", k[i].ways }, { "number_of_sets", k[i].sets },
            { "coherency_line_size", k[i].line }, { "physical_line_partition", 1 }, { "id", cpu },
        };
        for (size_t f = 0; f < sizeof nums / sizeof *nums; f++) {
            snprintf(name, sizeof name, "cpu/cpu%u/cache/index%zu/%s", cpu, i, nums[f].file);
            snprintf(text, sizeof text, "%u\n", nums[f].value);
            put(tr, name, text);
        }
        snprintf(name, sizeof name, "cpu/cpu%u/cache/index%zu/size", cpu, i);
        snprintf(text, sizeof text, "%uK\n", k[i].ways * k[i].sets * k[i].line / 1024);
        put(tr, name, text);
        snprintf(name, sizeof name, "cpu/cpu%u/cache/index%zu/type", cpu, i);
        snprintf(text, sizeof text, "%s\n", k[i].type_name);
        put(tr, name, text);
        snprintf(name, sizeof name, "cpu/cpu%u/cache/index%zu/uevent", cpu, i);
        put(tr, name, "");
        snprintf(list, sizeof list, "cpu/cpu%u/cache/index%zu/shared_cpu_list", cpu, i);
        snprintf(mask, sizeof mask, "cpu/cpu%u/cache/index%zu/shared_cpu_map", cpu, i);
        put_set(tr, n, list, mask, cpu, cpu);
    }
}

/* /sys/devices/system/cpu: the machine's n CPUs, each a core of its own
 * in one package with the virtual CPU's caches, none offline or isolated,
 * no frequency (cpufreq). */
static void put_cpus(struct tree *tr, unsigned n)
{
    char name[64], all[32], text[32];
    snprintf(all, sizeof all, n > 1 ? "0-%u\n" : "0\n", n - 1);
    put(tr, "cpu/online", all);
    put(tr, "cpu/possible", all);
    put(tr, "cpu/present", all);
    put(tr, "cpu/offline", "\n");
    put(tr, "cpu/isolated", "\n");
    put(tr, "cpu/kernel_max", "8191\n");
    static const char *const own[] = { "core_cpus", "thread_siblings" };
    static const char *const every[] = { "core_siblings", "package_cpus", "die_cpus" };
    for (unsigned i = 0; i < n; i++) {
        snprintf(name, sizeof name, "cpu/cpu%u/online", i);
        if (i > 0) put(tr, name, "1\n");        /* cpu0 cannot go offline */
        snprintf(text, sizeof text, "%u\n", i);
        snprintf(name, sizeof name, "cpu/cpu%u/topology/core_id", i);
        put(tr, name, text);
        snprintf(name, sizeof name, "cpu/cpu%u/topology/physical_package_id", i);
        put(tr, name, "0\n");
        snprintf(name, sizeof name, "cpu/cpu%u/topology/die_id", i);
        put(tr, name, "0\n");
        for (size_t k = 0; k < sizeof own / sizeof *own; k++) put_cpu_set(tr, n, i, own[k], i, i);
        for (size_t k = 0; k < sizeof every / sizeof *every; k++) put_cpu_set(tr, n, i, every[k], 0, n - 1);
        put_cpu_caches(tr, n, i);
    }
}

/* /sys/kernel/mm/transparent_hugepage as Debian's kernel sets it, and the
 * clock source of a machine with a stable TSC. */
static void put_thp(struct tree *tr)
{
    static const char *const thp[][2] = {
        { "thp/enabled", "always [madvise] never\n" },
        { "thp/defrag", "always defer defer+madvise [madvise] never\n" },
        { "thp/use_zero_page", "1\n" },
        { "thp/hpage_pmd_size", "2097152\n" },
        { "thp/shmem_enabled", "always within_size advise [never] deny force\n" },
        { "thp/khugepaged/defrag", "1\n" },
        { "thp/khugepaged/max_ptes_none", "511\n" },
        { "thp/khugepaged/max_ptes_swap", "64\n" },
        { "thp/khugepaged/max_ptes_shared", "256\n" },
        { "thp/khugepaged/pages_to_scan", "4096\n" },
        { "thp/khugepaged/scan_sleep_millisecs", "10000\n" },
        { "thp/khugepaged/alloc_sleep_millisecs", "60000\n" },
        { "thp/khugepaged/pages_collapsed", "0\n" },
        { "thp/khugepaged/full_scans", "0\n" },
        { "clocksource/current_clocksource", "tsc\n" },
        { "clocksource/available_clocksource", "tsc hpet acpi_pm \n" },
    };
    for (size_t i = 0; i < sizeof thp / sizeof *thp; i++) put(tr, thp[i][0], thp[i][1]);
}

/* The sysctls of the table: Linux's defaults; those the kernel sizes by
 * its memory at boot (threads-max: a sixteen-KiB stack each in an eighth
 * of memory; file-max: a tenth of it in KiB) for the machine's. */
static void put_sysctls(const struct world *w, struct tree *tr)
{
    unsigned long long bytes = w->conf->memory_bytes;
    unsigned long long threads = bytes / (16384 * 8), files = bytes / 1024 / 10;
    const struct { const char *name; unsigned long long value; } sysctls[] = {
        { "wmem_default", NETSIM_SNDBUF }, { "rmem_default", NETSIM_RCVBUF },
        { "wmem_max", NETSIM_WMEM_MAX }, { "rmem_max", NETSIM_RMEM_MAX },
        { "pid_max", 4194304 }, { "threads_max", threads < 20 ? 20 : threads }, { "cap_last_cap", 40 },
        { "file_max", files < 8192 ? 8192 : files }, { "nr_open", 1048576 },
        { "overcommit_memory", 0 }, { "overcommit_ratio", 50 }, { "max_map_count", 65530 },
    };
    char buf[32];
    for (size_t i = 0; i < sizeof sysctls / sizeof *sysctls; i++) {
        snprintf(buf, sizeof buf, "%llu\n", sysctls[i].value);
        put(tr, sysctls[i].name, buf);
    }
}

/* Every text, for the config of w. */
static void build(const struct world *w, struct tree *tr)
{
    char buf[8192], *text;
    size_t len;
    unsigned n = w->conf->cpus;
    FILE *f = open_memstream(&text, &len);
    if (!f) abort();
    char flags[512];
    vcpu_flags(&w->vcpu, flags, sizeof flags);
    /* The virtual CPU cpuid tells (code/vcpu.h), as Linux prints it. */
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "processor\t: %u\nvendor_id\t: " VCPU_VENDOR "\ncpu family\t: %d\nmodel\t\t: %d\n"
                "model name\t: " VCPU_BRAND "\nstepping\t: %d\ncpu MHz\t\t: 1000.000\ncache size\t: %d KB\n"
                "physical id\t: 0\nsiblings\t: %u\ncore id\t\t: %u\ncpu cores\t: %u\napicid\t\t: %u\n"
                "initial apicid\t: %u\nfpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 11\nwp\t\t: yes\n"
                "flags\t\t: %s\nbugs\t\t:\nbogomips\t: 2000.00\nclflush size\t: 64\ncache_alignment\t: 64\n"
                "address sizes\t: 46 bits physical, 48 bits virtual\npower management:\n\n",
                i, VCPU_FAMILY, VCPU_MODEL, VCPU_STEPPING, VCPU_L2_KB, n, i, n, i, i, flags);
    if (fclose(f)) abort();
    put(tr, "cpuinfo", text);
    free(text);
    put(tr, "meminfo", meminfo_text(w, buf, sizeof buf));
    put_cpus(tr, n);
    put_thp(tr);
    put_sysctls(w, tr);
    put(tr, "boot_id", "6473696d-0000-4000-8000-000000000001\n");
    /* The kernel uname(2) tells of (syscalls/info.c). */
    put(tr, "version", "Linux version " DSIM_KERNEL_RELEASE " (dsim@dsim) (gcc) " DSIM_KERNEL_VERSION "\n");
    put(tr, "osrelease", DSIM_KERNEL_RELEASE "\n");
    put(tr, "kversion", DSIM_KERNEL_VERSION "\n");
    put(tr, "cmdline", "BOOT_IMAGE=/boot/vmlinuz-" DSIM_KERNEL_RELEASE " root=/dev/vda ro quiet\n");
    put(tr, "tcp_rmem", "4096\t131072\t6291456\n");
    put(tr, "tcp_wmem", "4096\t16384\t4194304\n");
    put(tr, "tcp_cc", "cubic\n");
    put(tr, "tcp_cc_list", "reno cubic\n");
    /* CPU times and counters of an idle machine booted at the epoch. */
    if (!(f = open_memstream(&text, &len))) abort();
    fprintf(f, "cpu  0 0 0 0 0 0 0 0 0 0\n");
    for (unsigned i = 0; i < n; i++) fprintf(f, "cpu%u 0 0 0 0 0 0 0 0 0 0\n", i);
    fprintf(f, "intr 0\nctxt 0\nbtime %llu\nprocesses 1\nprocs_running 1\n"
            "procs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n", (unsigned long long)world_boot_s(w));
    if (fclose(f)) abort();
    put(tr, "stat", text);
    free(text);
    put(tr, "loadavg", "0.00 0.00 0.00 1/1 1\n");
    put(tr, "empty/", "");
    /* Not the host's resolver, which may even sit at a cluster address
     * (10.0.0.2 in some clouds): one outside the cluster (TEST-NET-1), so
     * a name missing from /etc/hosts fails at once (ENETUNREACH). */
    put(tr, "resolv.conf", "nameserver 192.0.2.1\noptions attempts:1 timeout:1\n");
    /* Every machine's name resolves to its address, from each machine. */
    if (!(f = open_memstream(&text, &len))) abort();
    fprintf(f, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
    for (size_t i = 0; i < w->conf->nmachines; i++)
        fprintf(f, "%s\t%s\n", w->conf->machines[i].address, w->conf->machines[i].name);
    if (fclose(f)) abort();
    put(tr, "hosts", text);
    free(text);
}

/* The shared directory: its path, lock, the hash of what it holds, and
 * the process that made it (a forked worker uses its parent's, which the
 * parent removes). */
static struct {
    char dir[512];
    int lock;
    pid_t owner;
    uint64_t key;
    dev_t dev;
} shared = { .lock = -1 };

/* Writes the texts into dir/vfs with the machine's boot time on every
 * file and directory (directories last: writing into one moves its time). */
static int write_tree(const struct world *w, const char *dir, const struct tree *tr)
{
    char path[1024];
    size_t n = (size_t)snprintf(path, sizeof path, "%s/vfs", dir);
    if (mkdir(path, 0755) != 0) return -1;
    for (size_t i = 0; i < tr->n; i++) {
        snprintf(path + n, sizeof path - n, "/%s", tr->files[i].name);
        for (char *c = path + n + 1; (c = strchr(c, '/')); *c++ = '/') {
            *c = 0;
            if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
        }
        if (path[strlen(path) - 1] == '/') continue;   /* a directory alone */
        int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0444);
        size_t len = strlen(tr->files[i].text);
        if (fd < 0) return -1;
        struct timespec boot[2] = { { (time_t)world_boot_s(w), 0 }, { (time_t)world_boot_s(w), 0 } };
        bool ok = write(fd, tr->files[i].text, len) == (ssize_t)len && futimens(fd, boot) == 0;
        close(fd);
        if (!ok) return -1;
    }
    for (size_t i = tr->n; i-- > 0;) {     /* each file's directories, deepest first */
        snprintf(path + n, sizeof path - n, "/%s", tr->files[i].name);
        for (char *c; (c = strrchr(path + n, '/')) && c > path + n;) {
            *c = 0;
            machine_file_times(w, AT_FDCWD, path);
        }
    }
    path[n] = 0;
    machine_file_times(w, AT_FDCWD, path);
    return 0;
}

void vfs_release(void)
{
    if (shared.lock < 0 || shared.owner != getpid()) return;
    rundir_done(shared.dir, shared.lock);
    shared.lock = -1;
}

int vfs_write(struct world *w)
{
    char dir[sizeof w->run_dir + 8];
    snprintf(dir, sizeof dir, "%s/vfs", w->run_dir);
    if (mkdir(dir, 0755) != 0) return -1;       /* the machines' own files (machine.c) */
    snprintf(dir, sizeof dir, "%s/disk", w->run_dir);
    if (mkdir(dir, 0755) != 0) return -1;
    struct tree tr = { 0 };
    build(w, &tr);
    XXH3_state_t *h = XXH3_createState();
    if (!h) abort();
    XXH3_64bits_reset(h);
    for (size_t i = 0; i < tr.n; i++) {
        XXH3_64bits_update(h, tr.files[i].name, strlen(tr.files[i].name) + 1);
        XXH3_64bits_update(h, tr.files[i].text, strlen(tr.files[i].text) + 1);
    }
    uint64_t key = XXH3_64bits_digest(h);
    XXH3_freeState(h);
    int rc = 0;
    if (shared.lock < 0 || shared.key != key) {
        char err[600];
        vfs_release();
        shared.lock = rundir_make_fixed(shared.dir, sizeof shared.dir, err, sizeof err);
        unsigned long long bytes = (tr.n + 16) * 2 * 4096ULL;    /* a page for each file and directory */
        struct stat st;
        /* Then read-only as a file system: every bind of its files is, with
         * no remount of each (8 mount calls a machine start). */
        if (shared.lock < 0 || rundir_mount(shared.dir, bytes, err, sizeof err) != 0 ||
            write_tree(w, shared.dir, &tr) != 0 ||
            mount(NULL, shared.dir, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0 ||
            stat(shared.dir, &st) != 0) {
            int e = errno;
            if (shared.lock >= 0) rundir_done(shared.dir, shared.lock);
            shared.lock = -1;
            errno = e;
            rc = -1;
        } else {
            shared.owner = getpid();
            shared.key = key;
            shared.dev = st.st_dev;
        }
    }
    tree_free(&tr);
    if (rc == 0) w->host_devs[3] = shared.dev;
    return rc;
}

/* A bind, then its remount with flags, if any. */
static void bind_ro(const char *src, const char *dst, unsigned long flags)
{
    if (mount(src, dst, NULL, MS_BIND, NULL) == 0 && flags)
        mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_NOATIME | flags, NULL);
}

void vfs_bind_fixed(const struct world *w, const char *src, const char *dst, unsigned long flags)
{
    machine_file_times(w, AT_FDCWD, src);
    bind_ro(src, dst, flags);
}

void vfs_bind(const char *root, const char *under)
{
    char src[sizeof shared.dir + 300], dst[1200];
    for (size_t i = 0; i < sizeof vfiles / sizeof *vfiles; i++) {
        const char *t = vfiles[i].target;
        if (strncmp(t, under, strlen(under))) continue;
        snprintf(src, sizeof src, "%s/vfs/%s", shared.dir, vfiles[i].name);
        snprintf(dst, sizeof dst, "%s%s", root, t);
        mount(src, dst, NULL, MS_BIND, NULL);       /* read-only: its file system is */
    }
}
