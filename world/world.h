/* The world of one run: machines, processes, threads, the virtual clock,
 * the PRNG streams and the trace. Everything here changes only at steps. */
#ifndef DSIM_WORLD_H
#define DSIM_WORLD_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/user.h>
#include <time.h>
#include "base/config.h"
#include "base/idmap.h"
#include "base/oplog.h"
#include "base/prng.h"
#include "base/results.h"
#include "base/schedmodel.h"
#include "base/unsynced.h"
#include "code/vcpu.h"
#include "trace/trace.h"

struct world;
struct thread;

enum thread_state {
    TS_NEW,       /* at its first stop; runs when picked */
    TS_READY,     /* at a syscall stop; its syscall runs when picked */
    TS_BLOCKED,   /* at a syscall stop, waiting for a condition */
    TS_HELD,      /* at an event stop, waiting (a vfork parent) */
    TS_RUNNING,   /* holds the baton */
    TS_DYING,     /* killed; its death notice has not arrived yet */
    TS_DEAD,
};

typedef bool (*ready_fn)(struct world *w, struct thread *t);
typedef void (*exit_fn)(struct world *w, struct thread *t, long result);

struct process;
struct simsock;

/* What a handler keeps of its call across a block, or until the call's
 * exit stop: one member per kind of call, written when the call begins
 * (not on a retry) and read only by that call's handler. */
union call_state {
    struct { uint64_t end; bool cpu_clock; } sleep;         /* nanosleep, clock_nanosleep (time.c) */
    struct { uint64_t clk, flags; } timerfd_create;         /* the caller's rdi and rsi (time.c) */
    /* poll, select, epoll_wait (poll.c): the deadline, from the call's
     * first run, and whether it had a timeout and a zero one. */
    struct { uint64_t deadline; int timeout; } poll;
    struct { uint64_t deadline; } recvmmsg;                 /* UINT64_MAX: none (mmsg.c) */
    struct { uint64_t deadline; } ipc;                      /* semtimedop, msgsnd, msgrcv (ipc.c) */
    struct { uint64_t set, deadline; } sigtimedwait;        /* signal.c */
    /* socket.c: the caller's view of a socket made AF_UNIX for the kernel,
     * the socket a connect waits on, an accept's listener, what a receive
     * puts back at its exit (the room for the address; MSG_OOB; a stream's
     * address buffer hidden from the kernel). */
    struct { int family, type, protocol; } socket;
    struct { struct simsock *sock; } connect;
    struct { struct simsock *listener; int room; } accept;
    struct { struct simsock *sock; } nonblock;              /* fcntl F_SETFL, ioctl FIONBIO (socket.c) */
    struct { struct simsock *sock; int room; bool oob; } recv_dgram;
    struct { uint64_t name; } recv_stream;
    struct { unsigned long flags; uint64_t ctid; } clone;   /* clone, fork, vfork, clone3 (process.c) */
    struct { uint64_t arg; } subreaper;                     /* prctl(PR_SET_CHILD_SUBREAPER) */
    struct { long which; } waitid;
    /* readlink into dsim's buffer on the stack: the caller's (stat.c). */
    struct { bool redirected; uint64_t buf, size; } readlink;
    struct { bool locked; } flock;                          /* fcntl.c */
    struct { uint64_t persona; } personality;               /* the caller's rdi (info.c) */
    struct { int fd; } sync_write;                          /* a write through an O_SYNC fd (sync.c) */
};

struct thread {
    int id;                 /* creation order in the run: names the thread */
    pid_t tid;              /* host tid */
    pid_t vtid;             /* tid inside the machine's PID namespace */
    struct process *proc;
    enum thread_state state;
    bool awaiting_first_stop;

    struct user_regs_struct regs;   /* valid while stopped at a syscall */
    bool regs_dirty;

    /* Blocking. */
    uint64_t deadline;      /* virtual ns; UINT64_MAX = none */
    uint64_t blocked_since; /* when its current blocking call began */
    ready_fn ready;         /* polled each round while blocked; may be NULL */
    bool woken;             /* set by an explicit wake (futex, child exit) */
    bool interrupted;       /* a signal must interrupt the blocked call */
    bool timed_out;
    int copy_fd;            /* supervisor's copy of the fd waited on, or -1 */
    short copy_events;      /* what fd_ready_check polls copy_fd for */
    bool copy_lent;         /* copy_fd is its process's kept copy (syscalls/fdcache.c), held, not owned */
    bool copy_ready;        /* fd_ready_check's last poll of copy_fd found events */
    int ready_copy;         /* during a retried call's handler: copy_fd, polled ready just before it; else -1 */
    /* The futex waited on, keyed as the kernel keys it: (address space,
     * address) for private memory, (inode, offset) for shared mappings. */
    uint64_t futex_key;     /* address or offset */
    uint64_t futex_space;   /* mm id, or the backing inode; 0 = not waiting */
    bool futex_shared;
    uint32_t futex_bitset;
    bool futex_pi;          /* waiting in FUTEX_LOCK_PI: only an unlock hands it on */
    uint64_t futex_pi_since;  /* when it began to wait (steps): the unlock's order */
    /* futex_waitv: its keys, three words each (space, offset, shared), and
     * the index of the one a wake came through. */
    uint64_t *futexv;
    int nfutexv, futexv_hit;
    uint64_t sigsuspend_mask;
    union call_state call;  /* its handler's state, kept across a block or to the exit stop */
    long partial;           /* bytes a blocking write already moved */
    int intr_sig;           /* the signal that interrupts the blocked call */
    int pending_sig;        /* sent while it stood at a syscall: that call
                             * must not block (Linux finds it pending) */
    int *poll_copies;       /* copies of the fds a blocked poll/select waits on */
    int npoll_copies;
    bool retry;             /* the handler runs again after a block */

    exit_fn on_exit;        /* called at the syscall-exit stop */
    exit_fn exit_quiet;     /* and this, for a passed call, without recording the call's result */
    unsigned char pending_rec[640];  /* the call's trace record (callrec.h), ended at exit */
    size_t pending_len;
    bool note_result;       /* its passed call's result goes in a note at exit */
    exit_fn exit_note;      /* notes more at the exit stop, after the call's event (outside reads) */

    uint64_t ctid_addr;     /* CLONE_CHILD_CLEARTID / set_tid_address */
    uint64_t steps;
    uint64_t unready_epoch; /* its fd readiness was polled false at this io_epoch (UINT64_MAX: not since it blocked) */
    uint64_t unready_calm;  /* and io_calm_moves then */
    const struct simsock *copy_sim;  /* the simulated socket copy_fd is, or NULL */
    uint64_t unready_relay; /* io_relay_moves when its fd was polled false */
    uint64_t unready_gen;   /* and copy_sim's relay_gen then */
    uint64_t ready_epoch;   /* fd_ready_check found copy_fd ready at this io_epoch (0: not) */
    bool ready_known;       /* and io_epoch has not moved since: its step need not poll */
    uint64_t start_ns;      /* made at this machine monotonic time */
    uint64_t nvcsw, nivcsw; /* it blocked; another was picked while it was ready */
    bool exit_expected;     /* its own exit(): no group death follows */
    /* An mmap/mprotect making code executable, between its entry and exit
     * stops (world/rewrite.h): 0 or the syscall, and its arguments. */
    long code_map_nr;
    uint64_t code_map_args[6];
    struct sched_state sched;   /* its policy, priorities, affinity (syscalls/sched.c) */
    /* clone without CLONE_UNTRACED in place of the caller's (process.c): its
     * view of the flags is put back in the child too (rdi, or clone3's
     * arguments at this address, 0 for none). */
    bool restore_clone_flags;
    uint64_t clone_flags, clone3_args;
    /* dsim's calls right after an exec, one after the other: its clock page
     * being mapped (world/clockpage.c), cpuid's fault being armed
     * (world/cpuidarm.c). Each 0, or the stop awaited; the registers and
     * signal mask to put back after them. */
    int clock_mapping, cpuid_arming;
    uint8_t cpuid_arm_orig[2];  /* the bytes at the entry point the call's syscall replaced */
    struct user_regs_struct exec_saved;
    uint64_t exec_saved_mask;
};

struct sigaction_lite { uint64_t handler; uint64_t flags; };

/* A file a machine changed, to be stamped with the time of the change
 * (disk/ftimes.c): through an fd copy (dev, ino) or by upper path. */
struct dirty_file {
    dev_t dev;
    ino_t ino;
    int copy;
    char *upath;
    uint64_t at_ns;         /* the machine's wall clock, ns since 1970 */
};

struct sighand {
    int refs;
    struct sigaction_lite act[65];
};

struct process {
    pid_t pid;              /* host tgid */
    pid_t vpid;
    struct machine *m;
    struct process *parent; /* its subreaper once orphaned, or NULL (init reaps it) */
    bool subreaper;         /* PR_SET_CHILD_SUBREAPER: it adopts its descendants' orphans */
    /* A warm copy whose kernel parent is init, not its parent: dsim answers
     * for the parent (waits, SIGCHLD, getppid: syscalls/process.c). */
    bool parent_emulated;
    pid_t pgid_seen;        /* its process group when a wait last looked (process.c proc_pgid) */
    /* A SIGCHLD dsim sent its parent for it (parent_emulated), whose
     * siginfo becomes the kernel's at its delivery (step.c). */
    bool chld_sent;
    struct chld_info { int code, status; pid_t pid; uid_t uid; long utime; } chld;
    /* Its children's CPU times at their exits, the last few (a ring): a
     * SIGCHLD's si_utime when it is delivered, maybe after the wait that
     * reaped the child (process.c proc_chld_delivery). */
    struct { pid_t vpid; long utime; } exit_times[8];
    unsigned nexit_times;
    int mm;                 /* address-space id: keys private futexes */
    int pidfd;              /* for pidfd_getfd; -1 until needed */
    int nlive;              /* live threads */
    struct thread *leader;
    bool exited;            /* its leader's death was seen */
    bool reaped;            /* its parent collected it with wait */
    bool leader_zombie;     /* its leader called exit() while others live */
    int wstatus;
    struct sighand *sh;
    uint64_t alarm_at;      /* ITIMER_REAL expiry (virtual ns), 0 = off */
    /* The itimer signals dsim sent it (bit per signal: SIGALRM, SIGVTALRM,
     * SIGPROF) and it has not taken yet: the kernel's say SI_KERNEL. */
    uint64_t itimer_sigs;
    uint64_t alarm_interval;
    /* ITIMER_VIRTUAL and ITIMER_PROF: expiry and interval on its CPU time
     * (its steps times the quantum, all of it user time), 0 = off. */
    uint64_t cpu_itimer_at[2], cpu_itimer_interval[2];
    struct thread *vfork_parent; /* held until this child execs or exits */
    uint64_t dead_steps;    /* steps of its threads compacted out of the world's list */
    uint64_t dead_nvcsw, dead_nivcsw;   /* and their context switches */
    uint64_t start_ns;      /* made at this machine monotonic time */
    uint64_t rss_peak_kb;   /* the most resident memory /proc showed it (procfs.c) */
    char *pf_text;          /* the /proc file it reads: the snapshot (procfs.c) */
    size_t pf_len;
    ino_t pf_ino;
    uint64_t children_steps; /* steps of the children it waited for, and of theirs */
    struct code_sites *code; /* its address space's rewritten instructions (rewrite.h) */
    struct clock_map *clock; /* its address space's clock page, or NULL (world/clockpage.h) */
    uint64_t clock_stub;    /* where the clock stub is in its vDSO (0: not written) */
    bool cpuid_arm_due;     /* exec'd, its cpuid's fault not armed yet (world/cpuidarm.c) */
    bool vdso_hidden;       /* its auxv names no vDSO (syscalls/process.c patch_auxv) */
    struct kept_fd *kept;   /* copies of its socket fds kept between calls (syscalls/fdcache.c) */
    int nkept;
    int *plain;             /* its fds known to name a plain file or directory (fdcache.c) */
    int nplain;
    bool fds_unkept;        /* its fd table is not its own alone: nothing is kept */
};

struct machine {
    struct machine_conf *conf;
    const char *name;
    int index;
    pid_t init_pid;         /* host pid of dsim's untraced init (pid 1) */
    /* A process whose root is the machine's (/proc/PID/root resolves its
     * paths): its init, or in a seed started from a snapshot a helper in
     * the seed's root (supervisor/snapshot.c), the copy's chroot. */
    pid_t root_pid;
    bool init_reaped;
    /* Its /proc/sys/kernel/ns_last_pid, opened for writing before its
     * /proc/sys was sealed (machine_reset_pid_cursor); -1 if none. */
    int pid_cursor_fd;
    bool started;           /* an incarnation of it is running */
    bool exited;            /* its command exited: final */
    int wstatus;            /* of its command */
    uint64_t start_at;      /* when it (re)starts; UINT64_MAX = never again */
    int incarnation;        /* 0, then 1 after the first restart, ... */
    bool crashing;          /* a crash fault is killing it */
    uint64_t paused_until;  /* a pause fault: not scheduled before then */
    uint64_t boot_ns;       /* its monotonic time when this incarnation started */
    struct process *main;   /* the command's process (pid 2) */
    struct prng entropy;
    struct prng disk;           /* what a crash keeps of its undurable writes */
    struct oplog names;         /* name operations not durable yet (durable.h) */
    unsigned long grave_seq;    /* names the files those operations replaced */
    bool sync_opened;           /* it opened a file O_SYNC/O_DSYNC: writes need a look */
    struct unsynced unsynced;   /* what of its files changed since their durable copy */
    struct dirty_file *dirty;   /* changed files not stamped yet */
    size_t ndirty, capdirty;
    bool stamped;               /* it changed a file on its disk (ctimes in stat results) */
    struct idmap ids;           /* the inode and device numbers it sees */
    /* The devices of its mounts in the order its init makes them, read at
     * each (re)start: each incarnation's overlays and tmpfs are new
     * devices, and whether the host hands out a dead one's number again
     * is timing. Its stat results key files by the position instead. */
    uint64_t *mount_devs;
    size_t nmount_devs;
    /* Its mounts' ids, in the same order (the host's, from a global
     * counter): a mount's id is MOUNT_ID_FIRST plus its place here. */
    int *mount_ids;
    size_t nmount_ids;
    dev_t proc_dev;             /* its /proc's device, once looked up (0 = not yet) */
    dev_t sys_dev, dev_dev;     /* its /sys's and /dev's, looked up with it */
    dev_t node_dev;             /* the host's device nodes bound into its /dev */
    bool kernel_devs_known;     /* the three looked up (0: not found) */
#define MACHINE_NS_KINDS 8
    ino_t ns_host[MACHINE_NS_KINDS];    /* its namespaces' host inodes (syscalls/stat.c) */
    bool ns_known;              /* ns_host looked up for this incarnation */
    dev_t tmp_dev[2];           /* its /tmp and /var/tmp (syscalls/dirs.c) */
    ino_t tmp_ino[2];
    bool tmp_known;
    int out_fd, err_fd;     /* where its stdout and stderr go */
    bool stacks;            /* note the stack at each of its syscalls */
    /* Every signal any of its signalfds was ever asked to watch (sigfd.c):
     * its readiness checks then run with the thread's signals mirrored. */
    uint64_t sigfd_mask;
    struct ipc_state *ipc;      /* its System V IPC objects' times (syscalls/ipc.c) */
    int64_t clock_offset_ns;    /* its wall clock's offset, with every jump so far */
    int64_t clock_drift_ppb;
    struct sched_state init_sched;  /* its init's (pid 1), for the init of init_sched_pid */
    pid_t init_sched_pid;
    /* The files its crashes left torn, rolled back or lost ("PATH torn at
     * N\n..."), for a report whose machine failed reading one. */
    char crash_damage[2048];
};

struct timerfd_state;
struct netsim;
struct ptimer;

/* `dsim crash-states`: one crash of a run takes prescribed decisions. */
#define CRASH_PICK_MAX 256
struct crash_pick {
    int crash;                  /* which crash of the run: 1 = the first */
    const unsigned *choices;    /* its decisions in order; then the first option, */
    size_t nchoices;
    struct prng *sampler;       /* or, if set, one drawn from this */
    const char *match_machine;  /* crash 0: the first crash of this machine */
    uint64_t match_at;          /* at or after this time becomes `crash` */
    /* Filled in by the run. */
    unsigned used[CRASH_PICK_MAX], arity[CRASH_PICK_MAX];
    size_t nused;
    char desc[8192];            /* the decisions, as the trace tells them */
    char machine[64];
    uint64_t at_ns;
    const uint64_t (*seen)[2];  /* disks already explored: such a run stops at the crash */
    size_t nseen;
    /* Filled in by the run. */
    uint64_t disk_hash[2];      /* the disk the crash left */
    bool reached, duplicate;
};

struct world;
static inline bool warm_pending(const struct world *w);

struct world {
    struct config *conf;
    uint64_t seed;
    uint64_t startup_seed;      /* what streams draw from until the warm start (supervisor/warm.c); else seed */
    bool warmed;                /* the warm start point has passed */
    bool warm_printed;          /* warm_start = output: the machine printed the text */
    /* A sweep's start-up for a snapshot (supervisor/snapshot.c): the loop
     * stops at the point instead of passing it (at_point), and with
     * warm_network the thread whose call is the point (point_thread),
     * stopped in its step before the call is carried out. */
    bool warm_stop, at_point;
    struct thread *point_thread;
    uint64_t warm_looked[2];    /* how much of its stdout and stderr was looked at */
    uint64_t now;               /* virtual ns since the run began */
    /* clock_reads = page: reads the clock page may answer before the
     * next step, as the run loop set them (world/clockpage.h). */
    uint64_t clock_reads_left;
    struct prng sched;
    struct trace *trace;
    uint64_t steps;

    struct thread **threads;    /* creation order; the dead leave now and then */
    size_t nthreads, capthreads;
    struct thread **dead;       /* freed when the run ends */
    size_t ndead, capdead;
    struct process **deadprocs; /* reaped, likewise */
    size_t ndeadprocs, capdeadprocs;
    int threads_made;
    struct thread **runnable;   /* scratch for the scheduler, capthreads long */
    struct process **procs;
    size_t nprocs, capprocs;
    struct machine *machines;
    size_t nmachines;
    int next_mm, next_sighand;
    /* Counts what may have changed the readiness of a tracee's fd, or of
     * the relay's ends: every step but a calm one (step.c), a death, a
     * signal, a timer, a fault, a delivery or a read of the network. A
     * readiness poll that found nothing is not made again until it moves. */
    uint64_t io_epoch;
    /* How many of io_epoch's moves were steps whose call only read, waited
     * or slept (step.c relay_calm), or wrote to a simulated socket without
     * the kernel (rw.c, netsim_take_write): none of those makes a simulated
     * socket readable or writable (only the relay, or a shutdown, does). */
    uint64_t io_calm_moves;
    /* How many were the relay's arrivals of bytes or a FIN, each on one
     * connection only, whose sockets' relay_gen it moves (net/sim/relay.c). */
    uint64_t io_relay_moves;
    struct thread *running;
    struct thread *held_at_exit; /* its call returned; it goes on once the
                                  * deaths the call caused have been seen */

    struct netsim *net;         /* the simulated network (net/sim/netsim.h) */
    struct timerfd_state *timerfds;
    size_t ntimerfds, captimerfds;
    struct ptimer *ptimers;     /* POSIX timers (syscalls/ptimer.c) */
    /* The receive and send timeouts machines gave their own (not
     * simulated) sockets, by inode, as a machine's kernel keeps them
     * (syscalls/sockopt.c): the host's kernel rounds them to its tick. */
    struct sock_timeouts { ino_t ino; struct timeval tv[2]; } *sock_timeouts;
    size_t nsock_timeouts, capsock_timeouts;
    const struct fault_conf *faults;    /* this run's: the config's, or a plan's */
    size_t nfaults;
    bool *fault_fired;
    size_t *fired;              /* indices into faults, in the order they fired */
    size_t nfired;
    size_t nptimers, capptimers;

    /* Stops of new threads that arrived before their parent's clone event. */
    pid_t early_stops[64];
    int nearly;

    char run_dir[256];
    dev_t host_devs[4];         /* the run directory's, dsim's stdout/stderr and the fixed files' filesystems */
    struct timespec host_start; /* the host's wall clock when the run began */
    char **layers;              /* host mounts each machine overlays (durable.h) */
    size_t nlayers;
    struct crash_pick *pick;    /* NULL but in `dsim crash-states` */
    int ncrashes;
    int exec_stdio;             /* dsim exec: machine output goes to ours */
    bool trace_results;         /* note the results of calls passed to the kernel, and reads
                                 * from outside the simulation (syscalls/outside.c) */
    bool results_of_reads;      /* ... only of the calls that read data in */
    bool tsc_rewrite;           /* rdtsc/rdtscp rewritten in machine code, not faulting (rewrite.h) */
    bool cpuid_virtual;         /* cpuid answers the virtual CPU, vcpu (cpuid != host) */
    bool cpuid_rewrite;         /* ... through its sites rewritten, not its fault (rewrite.h) */
    struct vcpu vcpu;
    bool supervisor_cpuid_fault;    /* the supervisor arms the machines' cpuid fault too (hostcaps.h) */
    bool supervisor_tsc_fault;  /* the supervisor arms the machines' fault too while they run (hostcaps.h) */
    bool tcp_writes_kernel;     /* every TCP write goes through the kernel (DSIM_TCP_WRITES=kernel, hostcaps.h) */
    /* Files outside the simulation (dsim's own stdout/stderr): writes to
     * them pass through, since nothing simulated waits on them. */
    struct { dev_t dev; ino_t ino; } external[2];
    int nexternal;

    /* The last fatal signal a thread took, with its stack, for the report. */
    char crash[8192];

    enum outcome outcome;
    char reason[4096];
};

/* Virtual clocks. */
/* The world's wall clock at the start of a run: [simulation] epoch, by
 * default 2025-01-01T00:00:00Z (config.h). */
/* The kernel machines are told they run. */
#define DSIM_KERNEL_RELEASE "6.1.0-dsim"
#define DSIM_KERNEL_VERSION "#1 SMP PREEMPT_DYNAMIC dsim"
/* The parent of every run directory, in $TMPDIR. */
#define RUNS_DIR "dsim-runs"
#define DSIM_BOOT_NS   (100ULL * 1000000000ULL)  /* uptime when the run begins */
/* A machine's clocks: the world's, run at its drift, and for the wall clock
 * also shifted by its offset and every jump so far. Jumps never touch the
 * monotonic clocks, which so never go back. */
static inline int64_t machine_elapsed(const struct world *w, const struct machine *m)
{
    return (int64_t)w->now + (int64_t)((__int128)w->now * m->clock_drift_ppb / 1000000000);
}
static inline uint64_t machine_monotonic(const struct world *w, const struct machine *m)
{
    return DSIM_BOOT_NS + (uint64_t)machine_elapsed(w, m);
}
/* When the machines booted, on the world's wall clock (seconds): the time
 * of dsim's fixed files and of the kernel's own ones (/proc, /sys, /dev). */
static inline int64_t world_boot_s(const struct world *w)
{
    return w->conf->epoch_s - (int64_t)(DSIM_BOOT_NS / 1000000000);
}
static inline uint64_t machine_realtime(const struct world *w, const struct machine *m)
{
    return (uint64_t)(w->conf->epoch_s * 1000000000LL + m->clock_offset_ns + machine_elapsed(w, m));
}

/* The key a file's host device gets in the machine's identity map: the
 * position of the machine's mount of it, the same in every incarnation,
 * or the host's device for what the machine did not mount itself. */
#define MOUNT_DEV_KEY (1ULL << 62)
static inline uint64_t machine_dev_key(const struct machine *m, uint64_t dev)
{
    for (size_t i = 0; i < m->nmount_devs; i++)
        if (m->mount_devs[i] == dev) return MOUNT_DEV_KEY | i;
    return dev;
}

/* The id the machine sees for a mount the host numbers host_id: the
 * first mount's is MOUNT_ID_FIRST, the next one's one more, as in the
 * order of a booted Linux's mounts; one outside the machine's (its root's
 * parent) is 1, a booted Linux's initial root file system. */
#define MOUNT_ID_FIRST 21
static inline int machine_mount_id(const struct machine *m, int host_id)
{
    for (size_t i = 0; i < m->nmount_ids; i++)
        if (m->mount_ids[i] == host_id) return MOUNT_ID_FIRST + (int)i;
    return 1;
}

/* Argument access on the stopped thread. */
#define ARG0(t) ((t)->regs.rdi)
#define ARG1(t) ((t)->regs.rsi)
#define ARG2(t) ((t)->regs.rdx)
#define ARG3(t) ((t)->regs.r10)
#define ARG4(t) ((t)->regs.r8)
#define ARG5(t) ((t)->regs.r9)
#define SYSNR(t) ((long)(t)->regs.orig_rax)

/* world.c */
const char *outcome_name(enum outcome o);
struct thread *world_thread_by_tid(struct world *w, pid_t tid);
struct process *world_proc_by_vpid(struct machine *m, struct world *w, pid_t vpid);
struct thread *world_thread_by_vtid(struct world *w, struct machine *m, pid_t vtid);
struct thread *world_add_thread(struct world *w, struct process *p, pid_t tid, pid_t vtid);
void world_compact_threads(struct world *w);
struct process *world_add_process(struct world *w, struct machine *m, pid_t pid, pid_t vpid);
/* The steps all of p's threads took, dead ones included: its CPU time. */
uint64_t process_steps(const struct world *w, const struct process *p);
/* Its threads' context switches, dead ones included (getrusage). */
void process_switches(const struct world *w, const struct process *p, uint64_t *nvcsw, uint64_t *nivcsw);
void world_fail(struct world *w, enum outcome o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* True (and forgotten) if pid's first stop came before its clone event. */
bool world_take_early_stop(struct world *w, pid_t pid);
/* The directories whose listings show a machine only what it made there
 * (and the way to its working directory): /tmp and /var/tmp. */
#define MACHINE_TMP_DIRS 2
extern const char *const machine_tmp_dirs[MACHINE_TMP_DIRS];

/* Gives a file dsim made for the machines (at path, relative to dirfd)
 * their boot time. */
void machine_file_times(const struct world *w, int dirfd, const char *path);
/* Entropy: every random byte a machine sees comes from its own PRNG
 * stream, and is part of the run's hash. */
void random_fill(struct world *w, struct thread *t, void *buf, size_t len);
/* A value event, "NAME = VALUE" (rdtsc, rdrand, ...). */
void trace_value(struct world *w, struct thread *t, const char *name, uint64_t value);
/* A warm start's point is still ahead (supervisor/warm.c). */
static inline bool warm_pending(const struct world *w) { return config_warm(w->conf) && !w->warmed; }

#endif
