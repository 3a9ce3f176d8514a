/* What this host can do, probed once per dsim process (a run probes only
 * what tsc_resolve needs, in-process): the facts that
 * decide how dsim keeps a run deterministic here (`dsim doctor`). */
#ifndef DSIM_HOSTCAPS_H
#define DSIM_HOSTCAPS_H
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "base/config.h"
#include "code/vcpu.h"

struct host_caps {
    bool rdtsc_faults;      /* PR_SET_TSC makes rdtsc raise SIGSEGV */
    bool rdtscp_faults;     /* and rdtscp */
    bool has_rdtscp;
    bool cpuid_faulting;    /* ARCH_SET_CPUID can make cpuid fault */
    bool has_rdrand, has_rdseed;
    bool pmu;               /* a hardware instruction counter (perf_event_open) */
    bool user_namespaces;   /* an unprivileged user namespace can be made */
    bool overlayfs;
    bool pidfd_getfd;
    bool vsyscall;          /* the legacy vsyscall page is mapped */
    bool proc_pidns;        /* fsconfig(FSCONFIG_SET_FD, "pidns") (Linux 6.17) */
    char kernel[160];
    char cpu[128];
};

const struct host_caps *host_caps(void);

/* How rdtsc is kept on virtual time in a run with this setting here:
 * true = rewritten, false = the host's fault. -1 (and why, in err) if the
 * setting cannot be honoured on this host. */
int tsc_resolve(enum tsc_mode mode, bool *rewrite, char *err, size_t errlen);

/* How cpuid is answered in a run with this setting here. */
enum cpuid_how { CPUID_BY_HOST, CPUID_BY_FAULT, CPUID_BY_REWRITE };
/* The way, or -1 (and why, in err) if the setting cannot be honoured on
 * this host (trap without CPUID faulting). DSIM_CPUID_AUTO=trap|rewrite
 * in the environment says what auto takes (a test of the other branch). */
int cpuid_resolve(enum cpuid_mode mode, enum cpuid_how *how, char *err, size_t errlen);
/* The virtual CPU for cpus cores on this host: the features this host's
 * CPU lacks taken out (their names in missing, if given). */
void vcpu_for_host(struct vcpu *c, unsigned cpus, char *missing, size_t len);

/* How a machine's /proc (of its pid namespace, which its init's user
 * namespace owns) is made here: true = by dsim with fsconfig "pidns",
 * false = mounted by a helper forked into the pid namespace (older
 * kernels). The environment's DSIM_PROC_MOUNT=pidns|helper forces one.
 * Probed once. -1 (and why, in err) if that setting is unknown or cannot
 * be honoured on this host. */
int proc_mount_resolve(bool *pidns, char *err, size_t errlen);

/* Whether a machine joins the network namespace its index had in the
 * last seed when nothing is left in it (true), or always gets a new one;
 * the environment's DSIM_NETNS=reuse|fresh forces either (default reuse).
 * -1 (and why, in err) if that setting is unknown. */
int netns_reuse_resolve(bool *reuse, char *err, size_t errlen);

/* Whether the supervisor arms the machines' rdtsc and cpuid faults for
 * itself while they run (supervisor_tsc_fault, supervisor_cpuid_fault),
 * when they have them: a context switch between two tasks whose PR_SET_TSC
 * differ writes CR4, and between two whose ARCH_SET_CPUID differ an MSR,
 * which a hypervisor traps, so a stop costs two of those otherwise (2.5 ms
 * more for `dsim exec /bin/true` on the Intel VM of 2026-12-03 for cpuid's
 * alone). The environment's DSIM_SUPERVISOR_TSC=fault|enable forces either
 * for both. -1 (and why, in err) if
 * that setting is unknown. */
int supervisor_tsc_resolve(bool *fault, char *err, size_t errlen);
/* DSIM_WARM_FDS=host (default) or old-host: whether a warm start's
 * snapshot reads the fds a copy makes anew (supervisor/snapfds.c) as this
 * host tells them, or as a host that cannot (no unix sock_diag, no
 * eventfd mode in fdinfo: Linux before 6.3; no kcmp to tell two processes'
 * shared files), which refuses them and runs cold with the same hashes.
 * t_warm_snapshot runs both. */
int warm_fds_resolve(bool *host, char *err, size_t errlen);
/* DSIM_TCP_WRITES=relay (default) or kernel: whether a blocking write of
 * up to 64 KiB to a simulated TCP socket whose relay end is empty goes to
 * the relay straight from dsim's buffer (netsim_take_write), or through the
 * kernel socket, as every write did before (the same hashes on a host whose
 * net.core.wmem_default takes 64 KiB at once; t_net_take runs both). */
int tcp_writes_resolve(bool *relay, char *err, size_t errlen);
/* Whether this host's overlayfs mounts with its inodes index on (module
 * parameter index=Y): then a layer one mount uses no other mount may, and
 * a machine that starts again in a seed from a warm start's snapshot,
 * whose layers the seed's root still mounts, could not have its disk; a
 * seed that crashes one runs cold. DSIM_OVERLAY_INDEX=on|off forces either
 * (t_warm_snapshot runs both). -1 (and why, in err) if that setting is
 * unknown. */
int overlay_index_resolve(bool *on, char *err, size_t errlen);
/* Arms (on) or disarms rdtsc's fault for the calling thread. While armed,
 * the thread must read no TSC: its clock reads are system calls
 * (host_clock_ns), and a child that execs anything but a machine's command
 * disarms it first (the flag survives exec; a dynamic loader reads the TSC). */
void supervisor_tsc_fault(bool on);
/* Likewise cpuid's. While armed, the thread's own cpuid (a library's) is
 * answered by the CPU, the fault lifted for it. */
void supervisor_cpuid_fault(bool on);
/* The host's clock, by a system call: the vDSO's would read the TSC. */
uint64_t host_clock_ns(clockid_t clock);
/* The CPUs dsim may use as it started (its caller's affinity, taskset's),
 * before a sweep's workers and a run pin themselves to one: where a killed
 * machine's exit may run. host_cpus_note records them, first thing in
 * main; host_cpus is NULL until then. */
void host_cpus_note(void);
const cpu_set_t *host_cpus(void);
#endif
