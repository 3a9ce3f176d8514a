/* A process's own /proc files, from dsim's accounting.
 *
 * /proc/PID/stat, status, statm, schedstat, io and maps (and those of each
 * thread, /proc/PID/task/TID/...) are the kernel's counters of the host's
 * run: CPU times, start time in host ticks, page faults, context switches,
 * resident memory, the CPU last run on, the host's CPU and node masks. A
 * program that polls its own CPU time there until it moves looped a
 * different number of times in every run. Reads of these files (a read's
 * fd is probed anyway: only reads of /proc files pay a readlink more) are
 * served from the kernel's text with those fields replaced:
 *
 * - CPU time: the steps times the quantum, as clock_gettime, getrusage and
 *   times() give it (user time; system time 0), children's as wait gave;
 * - start time: when the process (thread) was made, on the machine's
 *   monotonic clock;
 * - state: the thread's in the simulation (R running or ready, S waiting,
 *   Z gone), not ptrace's tracing stop;
 * - context switches: voluntary when it blocked, involuntary when another
 *   thread was picked while it was ready;
 * - resident memory: its private writable memory (VmData + VmStk) as
 *   anonymous, its code (VmExe + VmLib) as file-backed: the kernel's counts
 *   follow the host's page cache and fault-around;
 * - what has no virtual meaning: page faults, delay accounting, storage
 *   I/O bytes (0), the CPU last run on (0, as getcpu says), queued signals
 *   (the host counts the user's, host-wide: the process's pending ones);
 * - the CPU and memory node masks: the machine's `cpus`, node 0;
 * - maps: the device and inode numbers of mapped files, the machine's;
 * - smaps and smaps_rollup: maps' lines, and each mapping's memory in the
 *   model of resident memory above (the kernel's counts follow the host's
 *   page cache, fault-around and THP setting, and Pss other processes'
 *   sharing: Redis logs its fork's copy-on-write from Private_Dirty), in
 *   6.1's fields;
 * - cgroup: the root of a unified hierarchy, as a process in a cgroup
 *   namespace of its own sees it (the host's names dsim's cgroup, whose
 *   limits Node and the JVM size their heaps by; a machine's /sys has no
 *   cgroup file system, supervisor/machine.c);
 * - oom_score: Linux's formula over the model's resident memory, the
 *   kernel's page tables and the process's oom_score_adj, against the
 *   machine's memory (the host's RAM and counts made it another number on
 *   every host and in every run);
 * - auxv: what the process's own copy says after dsim's changes at exec
 *   (process.c): the virtual CPU's AT_HWCAP and AT_HWCAP2, no vDSO where it
 *   is hidden (the kernel keeps the vector it made).
 *
 * status has the fields of the kernel uname reports (6.1), in its order,
 * whatever the host's kernel adds. A text is made at a read at offset 0 and
 * kept for the reads that follow, as the kernel's seq_file keeps its
 * snapshot. Reads are the only way in: these files cannot be mapped, and
 * sendfile and splice refuse them (EINVAL: they have no splice_read). */
#include "syscalls/sys.h"
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define TEXT_MAX 65536
#define TICK_NS 10000000ULL         /* USER_HZ = 100 */

enum pfile { PF_STAT, PF_STATUS, PF_STATM, PF_SCHEDSTAT, PF_IO, PF_MAPS, PF_CGROUP, PF_MOUNTINFO, PF_FDINFO, PF_AUXV,
             PF_SMAPS, PF_ROLLUP, PF_OOM, PF_NONE };
static const char *const pfile_names[] = { "stat", "status", "statm", "schedstat", "io", "maps", "cgroup", "mountinfo",
                                           "fdinfo/", "auxv", "smaps", "smaps_rollup", "oom_score" };

/* What a /proc path names: a process (vtid 0) or one of its threads. */
struct ptarget {
    enum pfile kind;
    pid_t vpid, vtid;
    int fd;                     /* fdinfo's */
};

/* What dsim knows of it. */
struct acct {
    pid_t host;                 /* its host pid (or tid) */
    char state;                 /* R, S, Z */
    uint64_t cpu_ns, children_ns, start_ns, steps, nvcsw, nivcsw;
    struct process *proc;       /* NULL: pid 1, dsim's init */
};

static bool parse_path(const char *path, struct ptarget *x)
{
    char name[16];
    int vpid, vtid = 0, n = 0;
    if (sscanf(path, "/proc/%d/task/%d/%15s%n", &vpid, &vtid, name, &n) != 3 &&
        (vtid = 0, sscanf(path, "/proc/%d/%15s%n", &vpid, name, &n) != 2))
        return false;
    if (path[n]) return false;
    int fd = -1, end = 0;
    if (sscanf(name, "fdinfo/%d%n", &fd, &end) == 1 && !name[end] && fd >= 0) name[7] = 0;
    x->fd = fd;
    for (x->kind = PF_STAT; x->kind < PF_NONE; x->kind++)
        if (!strcmp(name, pfile_names[x->kind])) break;
    x->vpid = vpid;
    x->vtid = vtid;
    return x->kind != PF_NONE;
}

static char thread_state(const struct thread *t)
{
    switch (t->state) {
    case TS_NEW: case TS_READY: case TS_RUNNING: return 'R';
    case TS_BLOCKED: case TS_HELD: return 'S';
    default: return 'Z';
    }
}

static bool acct_of(struct world *w, struct machine *m, const struct ptarget *x, struct acct *a)
{
    memset(a, 0, sizeof *a);
    uint64_t q = w->conf->quantum_ns;
    if (x->vpid == 1) {                     /* init: reaps, and is never scheduled */
        a->host = m->init_pid;
        a->state = 'S';
        a->start_ns = m->boot_ns;
        return true;
    }
    struct process *p = world_proc_by_vpid(m, w, x->vpid);
    if (!p) return false;
    struct thread *t = x->vtid ? world_thread_by_vtid(w, m, x->vtid) : p->leader;
    if (!t || t->proc != p) return false;
    a->proc = p;
    a->host = x->vtid ? t->tid : p->pid;
    a->state = !x->vtid && (p->exited || p->leader_zombie) ? 'Z' : thread_state(t);
    a->start_ns = x->vtid ? t->start_ns : p->start_ns;
    a->steps = t->steps;
    a->nvcsw = t->nvcsw;
    a->nivcsw = t->nivcsw;
    a->cpu_ns = (x->vtid ? t->steps : process_steps(w, p)) * q;
    a->children_ns = x->vtid ? 0 : p->children_steps * q;
    return true;
}

/* ---- memory ---- */

struct mem { uint64_t anon_kb, file_kb, hwm_kb, pte_kb; bool known; };

static uint64_t status_kb(const char *text, const char *field)
{
    const char *at = strstr(text, field);
    return at ? strtoull(at + strlen(field), NULL, 10) : 0;
}

/* The resident memory dsim shows, from the sizes in the kernel's status of
 * the host pid (or tid). */
static void mem_of(const struct acct *a, struct mem *mem)
{
    char path[64], text[TEXT_MAX];
    memset(mem, 0, sizeof *mem);
    snprintf(path, sizeof path, "/proc/%d/status", (int)a->host);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
    if (fd >= 0) close(fd);
    if (n <= 0) return;
    text[n] = 0;
    if (!strstr(text, "\nVmSize:")) return;     /* no memory: a zombie */
    mem->known = true;
    mem->anon_kb = status_kb(text, "\nVmData:") + status_kb(text, "\nVmStk:");
    mem->file_kb = status_kb(text, "\nVmExe:") + status_kb(text, "\nVmLib:");
    mem->pte_kb = status_kb(text, "\nVmPTE:");
    uint64_t rss = mem->anon_kb + mem->file_kb;
    if (a->proc && rss > a->proc->rss_peak_kb) a->proc->rss_peak_kb = rss;
    mem->hwm_kb = a->proc ? a->proc->rss_peak_kb : rss;
}

/* ---- the files ---- */

/* Splits the kernel's stat line after the command name (which may hold
 * spaces and parentheses) into fields 3 and on. */
static int stat_fields(char *text, char **head, char *fields[], int max)
{
    char *rparen = strrchr(text, ')');
    if (!rparen || rparen[1] != ' ') return 0;
    rparen[1] = 0;
    *head = text;
    int n = 0;
    for (char *s = strtok(rparen + 2, " \n"); s && n < max; s = strtok(NULL, " \n")) fields[n++] = s;
    return n;
}

static void make_stat(struct acct *a, char *kernel, FILE *out)
{
    char *head, *f[64], num[17][24];
    int n = stat_fields(kernel, &head, f, 64);
    if (n < 37) {                           /* not a stat line: as it is */
        fputs(kernel, out);
        return;
    }
    struct mem mem;
    mem_of(a, &mem);
    /* Field k (1-based, as proc(5) numbers them) is f[k - 3]. */
    struct { int field; unsigned long long value; } set[] = {
        { 10, 0 }, { 11, 0 }, { 12, 0 }, { 13, 0 },                   /* page faults */
        { 14, a->cpu_ns / TICK_NS }, { 15, 0 }, { 16, a->children_ns / TICK_NS }, { 17, 0 },
        { 22, a->start_ns / TICK_NS }, { 24, mem.known ? (mem.anon_kb + mem.file_kb) / 4 : 0 },
        { 35, a->state != 'R' },            /* wchan: waiting or not */
        { 39, 0 }, { 42, 0 }, { 43, 0 }, { 44, 0 },                   /* CPU, delays, guest */
    };
    char state[2] = { a->state, 0 }, ppid[24];
    f[0] = state;
    if (a->proc && a->proc->parent_emulated && a->proc->parent) {    /* a warm copy's (process.c sys_getppid) */
        snprintf(ppid, sizeof ppid, "%d", (int)a->proc->parent->vpid);
        f[1] = ppid;
    }
    for (size_t i = 0; i < sizeof set / sizeof *set; i++)
        if (set[i].field - 3 < n) {
            snprintf(num[i], sizeof num[i], "%llu", set[i].value);
            f[set[i].field - 3] = num[i];
        }
    fprintf(out, "%s", head);
    for (int i = 0; i < n; i++) fprintf(out, " %s", f[i]);
    fputc('\n', out);
}

/* The kernel's status as "Name:\tvalue" lines: the value of a field, or NULL. */
static const char *status_value(char *kernel, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name);
    for (char *line = kernel; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (!strncmp(line, name, nl) && line[nl] == ':') {
            const char *v = line + nl + 1;
            while (*v == '\t') v++;
            size_t k = strcspn(v, "\n");
            snprintf(buf, len, "%.*s", (int)(k < len ? k : len - 1), v);
            return buf;
        }
    return NULL;
}

/* The kernel's bitmap format: 32-bit groups in hex, most significant first. */
static void cpu_mask(unsigned cpus, char *out, size_t len)
{
    size_t off = 0;
    unsigned groups = (cpus + 31) / 32;
    for (unsigned g = groups; g-- > 0;) {
        unsigned bits = cpus - g * 32 >= 32 ? 32 : cpus - g * 32;
        unsigned long long v = bits == 32 ? 0xffffffffULL : (1ULL << bits) - 1;
        off += (size_t)snprintf(out + off, len - off, g == groups - 1 ? "%llx" : ",%08llx", v);
    }
}

static const char *const status_order[] = {
    "Name", "Umask", "State", "Tgid", "Ngid", "Pid", "PPid", "TracerPid", "Uid", "Gid", "FDSize", "Groups",
    "NStgid", "NSpid", "NSpgid", "NSsid", "VmPeak", "VmSize", "VmLck", "VmPin", "VmHWM", "VmRSS", "RssAnon",
    "RssFile", "RssShmem", "VmData", "VmStk", "VmExe", "VmLib", "VmPTE", "VmSwap", "HugetlbPages",
    "CoreDumping", "THP_enabled", "Threads", "SigQ", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt", "CapInh",
    "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp", "Seccomp_filters",
    "Speculation_Store_Bypass", "SpeculationIndirectBranch", "Cpus_allowed", "Cpus_allowed_list",
    "Mems_allowed", "Mems_allowed_list", "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches",
};

/* Signals pending in a mask as status prints it (hex digits). */
static int signals_in(const char *hex)
{
    int n = 0;
    for (; *hex; hex++) {
        int c = tolower((unsigned char)*hex);
        if (isxdigit(c)) n += __builtin_popcount((unsigned)(isdigit(c) ? c - '0' : c - 'a' + 10));
    }
    return n;
}

static void make_status(struct world *w, struct acct *a, char *kernel, FILE *out)
{
    struct mem mem;
    mem_of(a, &mem);
    char v[512], mask[400];
    static const char *const states[] = { "R (running)", "S (sleeping)", "Z (zombie)" };
    bool vm = status_value(kernel, "VmSize", v, sizeof v) != NULL;      /* it has memory */
    for (size_t i = 0; i < sizeof status_order / sizeof *status_order; i++) {
        const char *name = status_order[i], *value = status_value(kernel, name, v, sizeof v);
        if (!strcmp(name, "State")) value = states[a->state == 'R' ? 0 : a->state == 'S' ? 1 : 2];
        else if (!strcmp(name, "PPid") && a->proc && a->proc->parent_emulated && a->proc->parent) {
            snprintf(v, sizeof v, "%d", (int)a->proc->parent->vpid);
            value = v;
        }
        else if (vm && (!strcmp(name, "VmHWM") || !strcmp(name, "VmRSS") || !strncmp(name, "Rss", 3))) {
            uint64_t kb = !strcmp(name, "VmHWM") ? mem.hwm_kb : !strcmp(name, "VmRSS") ? mem.anon_kb + mem.file_kb
                        : !strcmp(name, "RssAnon") ? mem.anon_kb : !strcmp(name, "RssFile") ? mem.file_kb : 0;
            snprintf(v, sizeof v, "%8llu kB", (unsigned long long)kb);
            value = v;
        } else if (!strcmp(name, "SigQ") && value) {
            /* The host counts the user's queued signals, host-wide. */
            char pending[64], shared[64];
            int n = signals_in(status_value(kernel, "SigPnd", pending, sizeof pending) ? pending : "") +
                    signals_in(status_value(kernel, "ShdPnd", shared, sizeof shared) ? shared : "");
            const char *limit = strchr(value, '/');
            snprintf(mask, sizeof mask, "%d%s", n, limit ? limit : "/0");
            value = mask;
        } else if (!strncmp(name, "Cap", 3) && value) {
            /* 6.1's capabilities (cap_last_cap 40, as the machine's
             * /proc/sys says), whatever a newer host adds. */
            snprintf(mask, sizeof mask, "%016llx", strtoull(value, NULL, 16) & ((1ULL << 41) - 1));
            value = mask;
        } else if (!strcmp(name, "Speculation_Store_Bypass")) value = "thread vulnerable";
        else if (!strcmp(name, "SpeculationIndirectBranch")) value = "conditional enabled";
        else if (!strcmp(name, "Cpus_allowed")) {
            cpu_mask(w->conf->cpus, mask, sizeof mask);
            value = mask;
        } else if (!strcmp(name, "Cpus_allowed_list")) {
            snprintf(mask, sizeof mask, w->conf->cpus > 1 ? "0-%u" : "0", w->conf->cpus - 1);
            value = mask;
        } else if (!strcmp(name, "Mems_allowed")) {
            /* 1024 nodes (NODES_SHIFT 10, as Debian builds it), node 0. */
            size_t off = 0;
            for (int g = 31; g >= 0; g--) off += (size_t)snprintf(mask + off, sizeof mask - off, g ? "00000000," : "00000001");
            value = mask;
        } else if (!strcmp(name, "Mems_allowed_list")) value = "0";
        else if (!strcmp(name, "voluntary_ctxt_switches") || !strcmp(name, "nonvoluntary_ctxt_switches")) {
            snprintf(v, sizeof v, "%llu", (unsigned long long)(name[0] == 'v' ? a->nvcsw : a->nivcsw));
            value = v;
        }
        if (value) fprintf(out, "%s:\t%s\n", name, value);
    }
}

static void make_statm(struct acct *a, char *kernel, FILE *out)
{
    unsigned long long size, resident, shared, text, lib, data, dt;
    struct mem mem;
    if (sscanf(kernel, "%llu %llu %llu %llu %llu %llu %llu", &size, &resident, &shared, &text, &lib, &data, &dt) != 7) {
        fputs(kernel, out);
        return;
    }
    mem_of(a, &mem);
    fprintf(out, "%llu %llu %llu %llu %llu %llu %llu\n", size, (unsigned long long)(mem.anon_kb + mem.file_kb) / 4,
            (unsigned long long)mem.file_kb / 4, text, lib, data, dt);
}

static void make_io(char *kernel, FILE *out)
{
    for (char *line = strtok(kernel, "\n"); line; line = strtok(NULL, "\n")) {
        /* Storage I/O follows the host's page cache and writeback. */
        if (!strncmp(line, "read_bytes:", 11) || !strncmp(line, "write_bytes:", 12) ||
            !strncmp(line, "cancelled_write_bytes:", 22))
            fprintf(out, "%.*s 0\n", (int)strcspn(line, ":") + 1, line);
        else
            fprintf(out, "%s\n", line);
    }
}

/* maps names each file's device and inode as the host numbers them (the
 * overlay's fresh device, a memfd's new inode): the machine's numbers are
 * shown, as stat gives them (idmap.h), the line laid out as the kernel
 * does (the name from column 74). */
static void maps_line(struct machine *m, const char *line, FILE *out)
{
    unsigned major, minor;
    unsigned long long ino;
    int lead = 0, end = 0;
    if (sscanf(line, "%*s %*s %*s %n%x:%x %llu%n", &lead, &major, &minor, &ino, &end) != 3 || !ino) {
        fprintf(out, "%s\n", line);
        return;
    }
    const char *name = line + end;
    while (*name == ' ') name++;
    /* Keyed as stat keys it (world.h), so both give one file's numbers. */
    uint64_t key = machine_dev_key(m, makedev(major, minor));
    dev_t vdev = idmap_dev(&m->ids, key);
    int n = fprintf(out, "%.*s%02x:%02x %llu ", lead, line, major(vdev), minor(vdev),
                    (unsigned long long)idmap_ino(&m->ids, key, ino));
    fprintf(out, "%*s%s\n", n < 73 ? 73 - n : 0, "", name);
}

static void make_maps(struct machine *m, char *kernel, FILE *out)
{
    for (char *line = strtok(kernel, "\n"); line; line = strtok(NULL, "\n")) maps_line(m, line, out);
}

/* A mapping's memory in the model of resident memory (status's VmRSS):
 * private writable memory and the stack resident, anonymous and dirty;
 * code resident, file-backed and clean; nothing else; none shared. */
struct smap { uint64_t size_kb, anon_kb, file_kb; };

static struct smap smap_of(const char *maps_line)
{
    unsigned long lo, hi;
    char perms[8] = "";
    struct smap v = { 0, 0, 0 };
    if (sscanf(maps_line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || hi < lo) return v;
    v.size_kb = (hi - lo) / 1024;
    bool stack = strstr(maps_line, " [stack]") != NULL;
    if (strstr(maps_line, " [vsyscall]")) return v;        /* the kernel's page, no process's */
    if ((perms[1] == 'w' && perms[3] == 'p') || stack) v.anon_kb = v.size_kb;
    else if (perms[2] == 'x') v.file_kb = v.size_kb;
    return v;
}

/* The fields of 6.1's smaps (rollup: of smaps_rollup) for memory v. */
static void smap_fields(FILE *out, struct smap v, bool rollup)
{
    uint64_t rss = v.anon_kb + v.file_kb;
    const struct { const char *name; uint64_t kb; bool rollup_only; } f[] = {
        { "Rss", rss, false }, { "Pss", rss, false }, { "Pss_Dirty", v.anon_kb, false },
        { "Pss_Anon", v.anon_kb, true }, { "Pss_File", v.file_kb, true }, { "Pss_Shmem", 0, true },
        { "Shared_Clean", 0, false }, { "Shared_Dirty", 0, false }, { "Private_Clean", v.file_kb, false },
        { "Private_Dirty", v.anon_kb, false }, { "Referenced", rss, false }, { "Anonymous", v.anon_kb, false },
        { "LazyFree", 0, false }, { "AnonHugePages", 0, false }, { "ShmemPmdMapped", 0, false },
        { "FilePmdMapped", 0, false }, { "Shared_Hugetlb", 0, false }, { "Private_Hugetlb", 0, false },
        { "Swap", 0, false }, { "SwapPss", 0, false }, { "Locked", 0, false },
    };
    char name[32];
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        if (!rollup && f[i].rollup_only) continue;
        snprintf(name, sizeof name, "%s:", f[i].name);
        fprintf(out, "%-16s%8llu kB\n", name, (unsigned long long)f[i].kb);
    }
}

/* smaps: each mapping's maps line, its size and the model's memory; its
 * VmFlags as the kernel gives them. THPeligible as under the machine's
 * THP setting, madvise: an anonymous mapping of 2 MiB or more that asked
 * (MADV_HUGEPAGE: "hg"). No ProtectionKey: the virtual CPU has no PKU. */
static void make_smaps(struct machine *m, char *kernel, FILE *out)
{
    char *head = NULL;
    for (char *line = strtok(kernel, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "VmFlags:", 8) != 0) {
            unsigned long lo, hi;
            if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, ' ')) head = line;
            continue;           /* the kernel's counts: the model's instead */
        }
        if (!head) continue;
        struct smap v = smap_of(head);
        maps_line(m, head, out);
        fprintf(out, "Size:           %8llu kB\nKernelPageSize: %8d kB\nMMUPageSize:    %8d kB\n",
                (unsigned long long)v.size_kb, 4, 4);
        smap_fields(out, v, false);
        unsigned long long ino = 1;
        sscanf(head, "%*s %*s %*s %*s %llu", &ino);
        bool thp = strstr(line, " hg") && !ino && v.anon_kb >= 2048;
        fprintf(out, "THPeligible:    %d\n%s\n", thp, line);
        head = NULL;
    }
}

/* smaps_rollup: the kernel's first line (the span of every mapping), and
 * the model's memory of every mapping of the process's maps. */
static void make_rollup(pid_t host, char *kernel, FILE *out)
{
    char path[64], line[4400];
    struct smap sum = { 0, 0, 0 };
    snprintf(path, sizeof path, "/proc/%d/maps", (int)host);
    FILE *maps = fopen(path, "re");
    while (maps && fgets(line, sizeof line, maps)) {
        struct smap v = smap_of(line);
        sum.anon_kb += v.anon_kb, sum.file_kb += v.file_kb;
    }
    if (maps) fclose(maps);
    char *first = strtok(kernel, "\n");
    if (!first) return;
    fprintf(out, "%s\n", first);
    smap_fields(out, sum, true);
}

/* ---- serving ---- */

/* mountinfo numbers mounts from a global counter and names each one's
 * device as the host numbers it (a run's overlays and tmpfs get new ones):
 * the machine's ids (world.h machine_mount_id) and devices (those stat
 * gives) are shown, and peer groups numbered from 1 as they first appear. */
static void make_mountinfo(struct machine *m, char *kernel, FILE *out)
{
    int groups[64], ngroups = 0;
    for (char *line = strtok(kernel, "\n"); line; line = strtok(NULL, "\n")) {
        int id, parent, end = 0;
        unsigned major, minor;
        if (sscanf(line, "%d %d %u:%u%n", &id, &parent, &major, &minor, &end) != 4) {
            fprintf(out, "%s\n", line);
            continue;
        }
        dev_t vdev = idmap_dev(&m->ids, machine_dev_key(m, makedev(major, minor)));
        fprintf(out, "%d %d %u:%u", machine_mount_id(m, id), machine_mount_id(m, parent), major(vdev), minor(vdev));
        /* The rest, space-separated (spaces in paths are escaped): root,
         * mount point, options, optional fields up to "-", then the file
         * system's. Peer groups are among the optional fields. */
        bool optional = true;
        int field = 0;
        for (char *save = NULL, *f = strtok_r(line + end, " ", &save); f; f = strtok_r(NULL, " ", &save), field++) {
            if (!strcmp(f, "-")) optional = false;
            char *colon = strchr(f, ':');
            if (optional && field >= 3 && colon &&
                (!strncmp(f, "shared:", 7) || !strncmp(f, "master:", 7) || !strncmp(f, "propagate_from:", 15))) {
                int host = atoi(colon + 1), k = 0;
                while (k < ngroups && groups[k] != host) k++;
                if (k == ngroups && ngroups < (int)(sizeof groups / sizeof *groups)) groups[ngroups++] = host;
                fprintf(out, " %.*s%d", (int)(colon + 1 - f), f, k + 1);
            } else {
                fprintf(out, " %s", f);
            }
        }
        fputc('\n', out);
    }
}

/* fdinfo's mount id and inode are the host's: the machine's are shown,
 * as mountinfo and stat give them (an epoll or inotify fd's lines about
 * what it watches keep the host's). */
static void make_fdinfo(struct machine *m, const struct ptarget *x, pid_t host, char *kernel, FILE *out)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)host, x->fd);
    bool known = stat(path, &st) == 0;
    for (char *line = strtok(kernel, "\n"); line; line = strtok(NULL, "\n")) {
        int id;
        unsigned long long ino;
        if (sscanf(line, "mnt_id:\t%d", &id) == 1) fprintf(out, "mnt_id:\t%d\n", machine_mount_id(m, id));
        else if (known && sscanf(line, "ino:\t%llu", &ino) == 1 && ino == (unsigned long long)st.st_ino)
            fprintf(out, "ino:\t%llu\n", (unsigned long long)idmap_ino(&m->ids, machine_dev_key(m, st.st_dev), ino));
        else fprintf(out, "%s\n", line);
    }
}

/* The machine path a tracee fd names, or false. */
static bool fd_path(struct thread *t, int fd, char *out, size_t len)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/%d/fd/%d", t->tid, fd);
    ssize_t n = readlink(link, out, len - 1);
    if (n <= 0) return false;
    out[n] = 0;
    return true;
}

/* The kernel's whole text of the file (maps can be long). */
static char *kernel_text(int copy)
{
    size_t cap = TEXT_MAX, len = 0;
    char *text = malloc(cap);
    for (ssize_t n; text && (n = pread(copy, text + len, cap - len - 1, (off_t)len)) > 0;) {
        len += (size_t)n;
        if (cap - len < 4096 && !(text = realloc(text, cap *= 2))) break;
    }
    if (text) text[len] = 0;
    return text;
}

/* oom_score as 6.1's proc_oom_score makes it: the badness (resident and
 * page-table pages, plus oom_score_adj thousandths of the memory) scaled
 * into 0..2000 and by 2/3; 0 for a process that has no memory (a zombie)
 * or is exempt (oom_score_adj -1000). The memory is the machine's, no swap. */
static void make_oom_score(struct world *w, const struct acct *a, FILE *out)
{
    struct mem mem;
    char path[64], text[32] = "";
    mem_of(a, &mem);
    snprintf(path, sizeof path, "/proc/%d/oom_score_adj", (int)a->host);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
    if (fd >= 0) close(fd);
    long adj = n > 0 ? strtol(text, NULL, 10) : 0, total = (long)(w->conf->memory_bytes / 4096), points = 0;
    if (mem.known && adj != -1000 && total > 0) {
        long badness = (long)((mem.anon_kb + mem.file_kb + mem.pte_kb) / 4) + adj * (total / 1000);
        points = (1000 + badness * 1000 / total) * 2 / 3;
    }
    fprintf(out, "%ld\n", points);
}

/* The kernel's auxiliary vector (binary pairs) with dsim's changes. */
static void make_auxv(struct world *w, const struct acct *a, int copy, FILE *out)
{
    uint64_t v[2 * 64];
    ssize_t n = pread(copy, v, sizeof v, 0);
    bool no_vdso = a->proc && a->proc->vdso_hidden;
    for (ssize_t i = 0; i + 1 < n / 8; i += 2) {
        if (w->cpuid_virtual && vcpu_auxv(&w->vcpu, v[i], &v[i + 1])) continue;
        if (v[i] == AT_SYSINFO_EHDR && no_vdso) v[i + 1] = 0;
    }
    if (n > 0) fwrite(v, 1, (size_t)n, out);
}

static void generate(struct world *w, struct machine *m, const struct ptarget *x, struct acct *a, int copy,
                     struct process *reader)
{
    char *kernel = x->kind == PF_AUXV ? strdup("") : kernel_text(copy);
    if (!kernel) return;
    free(reader->pf_text);
    reader->pf_text = NULL;
    reader->pf_len = 0;
    FILE *out = open_memstream(&reader->pf_text, &reader->pf_len);
    if (!out) {
        free(kernel);
        return;
    }
    switch (x->kind) {
    case PF_STAT: make_stat(a, kernel, out); break;
    case PF_STATUS: make_status(w, a, kernel, out); break;
    case PF_STATM: make_statm(a, kernel, out); break;
    case PF_SCHEDSTAT:
        fprintf(out, "%llu 0 %llu\n", (unsigned long long)(a->steps * w->conf->quantum_ns), (unsigned long long)a->steps);
        break;
    case PF_IO: make_io(kernel, out); break;
    case PF_MAPS: make_maps(m, kernel, out); break;
    case PF_CGROUP: fputs("0::/\n", out); break;      /* the root of a cgroup2 namespace */
    case PF_MOUNTINFO: make_mountinfo(m, kernel, out); break;
    case PF_FDINFO: make_fdinfo(m, x, a->host, kernel, out); break;
    case PF_AUXV: make_auxv(w, a, copy, out); break;
    case PF_SMAPS: make_smaps(m, kernel, out); break;
    case PF_ROLLUP: make_rollup(a->host, kernel, out); break;
    case PF_OOM: make_oom_score(w, a, out); break;
    case PF_NONE: break;
    }
    fclose(out);
    free(kernel);
}

bool procfs_file(struct machine *m, const struct stat *st)
{
    machine_kernel_devs(m);
    return S_ISREG(st->st_mode) && m->proc_dev && st->st_dev == m->proc_dev;
}

const char *procfs_text(struct world *w, struct thread *t, int fd, int copy, const struct stat *st, uint64_t pos,
                        size_t *len)
{
    struct machine *m = t->proc->m;
    if (!procfs_file(m, st)) return NULL;
    char path[256];
    struct ptarget x;
    struct acct a;
    if (!fd_path(t, fd, path, sizeof path) || !parse_path(path, &x) || !acct_of(w, m, &x, &a)) return NULL;
    struct process *reader = t->proc;
    /* A snapshot at offset 0, kept for the reads that follow. */
    if (pos == 0 || !reader->pf_text || reader->pf_ino != st->st_ino) {
        generate(w, m, &x, &a, copy, reader);
        reader->pf_ino = st->st_ino;
    }
    if (!reader->pf_text) return NULL;
    *len = reader->pf_len;
    return reader->pf_text;
}
