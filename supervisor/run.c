#include "supervisor/run.h"
#include "disk/durable.h"
#include "net/sim/netsim.h"
#include "supervisor/faults.h"
#include "supervisor/filter.h"
#include "supervisor/hostcaps.h"
#include "base/plan.h"
#include "supervisor/machine.h"
#include "supervisor/vfs.h"
#include "supervisor/report.h"
#include "world/rewrite.h"
#include "world/clockpage.h"
#include "supervisor/rundir.h"
#include "supervisor/step.h"
#include "world/tracer.h"
#include "supervisor/warm.h"
#include "supervisor/watch.h"
#include "syscalls/sys.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

volatile sig_atomic_t dsim_interrupted;

/* ---- the loop ---- */

static bool machines_done(struct world *w)
{
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        bool gone = m->exited || (!m->started && m->start_at == UINT64_MAX);   /* or crashed for good */
        if (!m->conf->daemon && !gone) return false;
    }
    return true;
}

static uint64_t next_event(struct world *w)
{
    uint64_t next = timers_next(w), fault = faults_next(w), net = netsim_next(w);
    if (fault < next) next = fault;
    if (net < next) next = net;
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        if (!m->started && !m->exited && m->start_at < next) next = m->start_at;
        if (m->paused_until > w->now && m->paused_until < next) next = m->paused_until;
    }
    for (size_t i = 0; i < w->nthreads; i++)
        if (w->threads[i]->state == TS_BLOCKED && w->threads[i]->deadline < next)
            next = w->threads[i]->deadline;
    return next;
}

/* The threads of runnable[0..n) on t's machine, t aside: the only ones
 * that could be waiting for t's clock reads (memory is shared within a
 * machine at most; another machine learns of t only through a system
 * call, which stops). */
static size_t machine_mates(const struct thread *t, struct thread *const *runnable, size_t n)
{
    size_t mates = 0;
    for (size_t i = 0; i < n; i++)
        if (runnable[i] != t && runnable[i]->proc->m == t->proc->m) mates++;
    return mates;
}

/* clock_reads = page: how many clock reads the page answers in t's next
 * step (docs/design.md §5 "Reads without a stop, while nothing else could
 * run"). Each read moves the time a quantum, as a step does. While another
 * thread of t's machine could run (mates), every read is the system call,
 * a stop and a scheduling point, as every read is under stop: on Linux
 * that thread would run beside t, and here it must not wait for 64 of t's
 * reads to get a turn (Go's runtime waits so for a thread that will stop
 * the world before it spins, and etcd spun for ever in half its seeds).
 * While only other machines' threads could (others), a few reads a turn:
 * they wait for t's turn, and each read is a quantum of their time. Else
 * the reads up to the next event of the world (a blocked thread's
 * deadline, a timer, a fault, a packet, a machine's start) are answered,
 * and the one that would carry the time to it is the stop where that
 * event happens. */
static uint64_t clock_reads_left(struct world *w, size_t mates, size_t others)
{
    if (mates) return 0;
    uint64_t next = next_event(w), q = w->conf->quantum_ns;
    if (next <= w->now) return 0;
    uint64_t reads = (next - w->now + q - 1) / q, limit = others ? CLOCK_PAGE_LIMIT_SHARED : CLOCK_PAGE_LIMIT;
    return reads < limit ? reads : limit;
}

/* A blocked thread's ready(): a poll of fd readiness that found nothing is
 * not made again while io_epoch stands (nothing could have changed it; an
 * epoll check that found nothing consumed nothing either). */
static bool ready_now(struct world *w, struct thread *t)
{
    bool fds = ready_on_fds(t->ready);
    if (fds && fd_still_unready(w, t)) return false;
    bool r = t->ready(w, t);
    if (fds && !r) fd_note_unready(w, t);
    /* One simulated socket found ready: step_call need not poll again. */
    if (r && t->ready == fd_ready_check && t->copy_sim) t->ready_epoch = w->io_epoch;
    return r;
}

/* What a turn does after its step. */
static void after_step(struct world *w)
{
    netsim_poll(w);
    warm_watch_output(w);
    if (++w->steps % 256 == 0) world_compact_threads(w);
    w->now += w->conf->quantum_ns;
}

static void loop(struct world *w, const struct filter_prog *fp)
{
    uint64_t limit = w->conf->duration_ns;
    while (w->outcome == OUT_RUNNING) {
        if (dsim_interrupted) { world_fail(w, OUT_INTERNAL, "interrupted"); return; }
        if (warm_due(w)) {
            if (w->warm_stop) { w->at_point = true; return; }      /* a snapshot's start-up */
            warm_point(w);
        }
        for (size_t i = 0; i < w->nmachines; i++) {
            struct machine *m = &w->machines[i];
            if (m->started || m->exited || m->start_at > w->now) continue;
            char why[512];
            if (machine_start(w, m, fp, why, sizeof why) != 0) {
                world_fail(w, OUT_INTERNAL, "cannot start machine %s: %s", m->name, why);
                return;
            }
            machine_note_live_init(m->init_pid);
            w->io_epoch++;
            trace_event(w->trace, w->now, m->name, 2, m->incarnation ? "machine restart %d" : "machine start",
                        m->incarnation);
        }
        timers_fire(w);
        faults_fire(w);
        netsim_fire(w);
        struct thread **runnable = w->runnable;
        size_t n = 0;
        for (size_t i = 0; i < w->nthreads; i++) {
            struct thread *t = w->threads[i];
            if (t->state == TS_BLOCKED) {
                if (t->deadline <= w->now) t->timed_out = true;
                if (t->woken || t->interrupted || t->timed_out || (t->ready && ready_now(w, t)))
                    t->state = TS_READY;
            }
            if ((t->state == TS_READY || t->state == TS_NEW) && !t->awaiting_first_stop &&
                t->proc->m->paused_until <= w->now)
                runnable[n++] = t;
        }
        if (w->outcome != OUT_RUNNING) return;
        if (machines_done(w)) return;
        if (n == 0) {
            uint64_t next = next_event(w);
            if (next == UINT64_MAX) { report_deadlock(w); return; }
            if (next >= limit) { w->now = limit; break; }
            w->now = next > w->now ? next : w->now;
            continue;
        }
        if (w->now >= limit) break;
        struct thread *t = runnable[prng_below(&w->sched, n)];
        if (w->conf->clock_reads == CLOCK_READS_PAGE) w->clock_reads_left = clock_reads_left(w, machine_mates(t, runnable, n), n - 1);
        step(w, t);
        if (w->at_point) return;    /* stopped in the step: step_from_point goes on */
        after_step(w);
    }
    if (w->outcome == OUT_RUNNING) report_timeout(w, limit);
}

/* Around the steps: the spin watchdog, and the machines' rdtsc and cpuid
 * faults armed in the supervisor too, so that the two context switches of
 * every stop change no CR4 bit or MSR (hostcaps.h). */
static void steps_begin(struct world *w)
{
    watchdog_arm(true);
    if (w->supervisor_tsc_fault) supervisor_tsc_fault(true);
    if (w->supervisor_cpuid_fault) supervisor_cpuid_fault(true);
}

static void steps_end(struct world *w)
{
    if (w->supervisor_cpuid_fault) supervisor_cpuid_fault(false);
    if (w->supervisor_tsc_fault) supervisor_tsc_fault(false);
    watchdog_arm(false);
}

/* ---- set-up and teardown ---- */

/* Kills every machine and waits until each of its threads is gone, but not
 * for the machines' inits: an init's exit tears down its namespaces (the
 * machine's mounts, IPC and network), which waits for RCU grace periods,
 * milliseconds the next seed need not wait for. Killed, they are reaped
 * when the next seed starts, or by a wait of its that sees them (as
 * pids of no machine of its), and all of them before dsim exits
 * (run_cleanup). */
static void teardown(struct world *w)
{
    for (size_t i = 0; i < w->nmachines; i++) machine_kill(w, &w->machines[i]);
    w->running = NULL;
    for (;;) {
        bool live = false;
        for (size_t i = 0; i < w->nthreads; i++)
            if (w->threads[i]->state != TS_DEAD) live = true;
        if (!live) break;
        int status;
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) { if (errno == EINTR) continue; break; }
        struct thread *t = world_thread_by_tid(w, pid);
        if (t && (WIFEXITED(status) || WIFSIGNALED(status))) { t->state = TS_DEAD; thread_drop_copy(t); }
        else if (t && WIFSTOPPED(status)) tracer_cont(pid, 0);
        else if (!t) handle_status(w, pid, status);
    }
    for (size_t i = 0; i < w->nprocs; i++) {
        fdcache_forget_all(w->procs[i]);
        if (w->procs[i]->pidfd >= 0) close(w->procs[i]->pidfd);
    }
    for (size_t i = 0; i < w->ndeadprocs; i++) {
        fdcache_forget_all(w->deadprocs[i]);
        if (w->deadprocs[i]->pidfd >= 0) close(w->deadprocs[i]->pidfd);
    }
}

void run_cleanup(int keep)
{
    if (keep == 0) machines_reap_earlier_inits(true);
    if (keep == 0) vfs_release();
    rundir_cleanup(keep);
}

/* The moment the run began, as file systems stamp it: a file's time at
 * or after it means a change made in the run (syscalls/stat.c). Neither
 * clock will do: the kernel stamps coarse times, or, since multigrain
 * timestamps (6.13), fine ones for files whose times were just looked at.
 * So a file of the run directory is stamped and its ctime read: the stat
 * between makes the kernel hand out a fine time, and raise the floor of
 * every later stamp to it. */
static void run_start_stamp(struct world *w)
{
    char path[sizeof w->run_dir + 16];
    snprintf(path, sizeof path, "%s/start", w->run_dir);
    int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && futimens(fd, NULL) == 0 && fstat(fd, &st) == 0) {
        w->host_start = st.st_ctim;
    } else {
        clock_gettime(CLOCK_REALTIME_COARSE, &w->host_start);
    }
    if (fd >= 0) close(fd);
}

/* The run directory's memory: room for a durable copy of each machine's
 * whole disk, OUTPUT_BYTES of output per machine, and dsim's small files.
 * Past it a machine's writes to its stdout or stderr fail with ENOSPC,
 * the same on every host. */
#define OUTPUT_BYTES (256ULL << 20)
static unsigned long long run_dir_bytes(const struct config *c)
{
    unsigned long long n = 64ULL << 20;
    for (size_t i = 0; i < c->nmachines; i++)
        n += (c->machines[i].disk_bytes ? c->machines[i].disk_bytes : DEFAULT_DISK_BYTES) + OUTPUT_BYTES;
    return n;
}

/* A full run directory made outputs (or durable copies) fail: say so in
 * the trace, where a report's last events show it. */
static void note_run_dir_full(struct world *w, unsigned long long size)
{
    struct statvfs sv;
    if (statvfs(w->run_dir, &sv) != 0 || (unsigned long long)sv.f_bavail * sv.f_frsize >= (1ULL << 20)) return;
    trace_event(w->trace, w->now, "-", 0, "run directory full (%llu MiB): writes to machines' stdout and stderr "
                "failed with ENOSPC", size >> 20);
}

/* A run that could not start: an internal failure, and why. */
static int not_run(struct seed_result *r, const char *why)
{
    r->outcome = OUT_INTERNAL;
    if (!(r->reason = strdup(why))) abort();
    return -1;
}

/* A run between its set-up (run_begin) and its end (run_end). */
struct run {
    struct world *w;
    int lock;                   /* the run directory's */
    bool discard;               /* a snapshot's start-up: no result, no report */
    bool forked;                /* a seed of a snapshot: its run directory and disks are its worker's */
    pid_t *last_vtid;           /* forked: each machine's highest pid or tid of the run, kept at its end */
    struct fault_conf *drawn;   /* the faults drawn for it ([chaos]) */
    size_t ndrawn;
    /* A run from a warm start's point: the start-up's faults, which its
     * seed's draws replaced (the network model may still name them). */
    struct fault_conf *startup_drawn;
    size_t nstartup_drawn;
};

static struct filter_prog fp;

/* Makes the world of a seed's run, its run directory, disks and network,
 * ready for the loop; -1 (r says why) if it cannot. */
static int run_begin(struct config *c, uint64_t seed, const struct run_opts *o, struct seed_result *r,
                     struct run *run)
{
    result_init(r);
    r->seed = seed;
    machines_reap_earlier_inits(false);
    if (!fp.insns && filter_build(&fp) != 0) return not_run(r, "cannot build the seccomp filter");
    bool tsc_rewrite;
    char tsc_why[1024];
    if (tsc_resolve(c->tsc, &tsc_rewrite, tsc_why, sizeof tsc_why) < 0) return not_run(r, tsc_why);
    enum cpuid_how cpuid;
    if (cpuid_resolve(c->cpuid, &cpuid, tsc_why, sizeof tsc_why) < 0) return not_run(r, tsc_why);
    bool supervisor_tsc, tcp_relay;
    if (supervisor_tsc_resolve(&supervisor_tsc, tsc_why, sizeof tsc_why) < 0 ||
        tcp_writes_resolve(&tcp_relay, tsc_why, sizeof tsc_why) < 0)
        return not_run(r, tsc_why);
    struct world *w = calloc(1, sizeof *w);
    w->conf = c;
    w->io_epoch = 1;
    w->tsc_rewrite = tsc_rewrite;
    w->supervisor_tsc_fault = supervisor_tsc && !tsc_rewrite;
    w->cpuid_virtual = cpuid != CPUID_BY_HOST;
    w->cpuid_rewrite = cpuid == CPUID_BY_REWRITE;
    w->supervisor_cpuid_fault = supervisor_tsc && cpuid == CPUID_BY_FAULT;
    vcpu_for_host(&w->vcpu, c->cpus, NULL, 0);
    w->tcp_writes_kernel = !tcp_relay;
    w->seed = seed;
    w->startup_seed = warm_startup_seed(c, seed);
    w->exec_stdio = o->exec_stdio;
    w->trace_results = o->trace_results && o->trace_out;
    w->results_of_reads = o->results_of_reads;
    for (int fd = 1; fd <= 2 && o->exec_stdio; fd++) {
        struct stat st;
        if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
            w->external[w->nexternal].dev = st.st_dev;
            w->external[w->nexternal++].ino = st.st_ino;
        }
    }
    prng_init(&w->sched, w->startup_seed, "sched");
    /* The report shows `recent` events after folding repeats and clock
     * reads (report.c): keep more than that. */
    w->trace = trace_new(o->trace_out, (o->recent ? o->recent : 20) * REPORT_RING_FACTOR);
    if (o->watch) {
        o->watch->w = w;
        trace_set_tap(w->trace, watch_tap, o->watch);
    }
    /* Under one fixed parent, which every machine sees empty (machine.c):
     * a machine listing /tmp finds the same entries in every run, and no
     * other seed's disks. */
    char why[512] = "";
    int lock = disk_private_mounts(why, sizeof why) ? rundir_make(w->run_dir, sizeof w->run_dir, why, sizeof why) : -1;
    bool made = lock >= 0 && rundir_mount(w->run_dir, run_dir_bytes(c), why, sizeof why) == 0;
    /* Before the fixed files: their ctimes then count as made in the run
     * (shown as their mtimes, the boot time; syscalls/stat.c). */
    if (made) run_start_stamp(w);
    if (made && vfs_write(w) != 0) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        made = false;
    }
    if (!made) {
        char reason[600];
        snprintf(reason, sizeof reason, "cannot create a run directory: %s", why);
        if (lock >= 0) rundir_done(w->run_dir, lock);
        trace_free(w->trace);
        if (o->watch) o->watch->w = NULL;
        free(w);
        return not_run(r, reason);
    }
    disk_layers_init(w);
    struct stat hs;
    if (stat(w->run_dir, &hs) == 0) w->host_devs[0] = hs.st_dev;
    for (int fd = 1; fd <= 2; fd++)
        if (fstat(fd, &hs) == 0 && S_ISREG(hs.st_mode)) w->host_devs[fd] = hs.st_dev;
    w->pick = o->pick;
    w->nmachines = c->nmachines;
    w->machines = calloc(c->nmachines, sizeof *w->machines);
    for (size_t i = 0; i < c->nmachines; i++) w->machines[i].conf = &c->machines[i];
    struct fault_conf *drawn = NULL;
    size_t ndrawn = 0;
    if (!o->use_plan) drawn = faults_for_run(c, seed, &ndrawn);
    w->faults = o->use_plan ? o->plan : drawn;
    w->nfaults = o->use_plan ? o->nplan : ndrawn;
    w->fault_fired = calloc(w->nfaults + 1, sizeof *w->fault_fired);
    w->fired = calloc(w->nfaults + 1, sizeof *w->fired);
    for (size_t i = 0; i < c->nmachines; i++) {
        struct machine *m = &w->machines[i];
        m->conf = &c->machines[i];
        m->name = m->conf->name;
        m->index = (int)i;
        m->pid_cursor_fd = -1;
        char name[300];
        snprintf(name, sizeof name, "entropy/%s", m->name);
        prng_init(&m->entropy, w->startup_seed, name);
        snprintf(name, sizeof name, "disk/%s", m->name);
        prng_init(&m->disk, w->startup_seed, name);
        m->clock_offset_ns = m->conf->clock_offset_ns;
        m->start_at = m->conf->start_ns;
        m->clock_drift_ppb = m->conf->clock_drift_ppb;
        if (o->stacks) {
            size_t nl = strlen(m->name);
            const char *p = strstr(o->stacks, m->name);
            m->stacks = !strcmp(o->stacks, "all") ||
                        (p && (p == o->stacks || p[-1] == ',') && (p[nl] == ',' || p[nl] == 0));
        }
        if (o->exec_stdio) {
            m->out_fd = dup(1);
            m->err_fd = dup(2);
        } else {
            char path[512];
            snprintf(path, sizeof path, "%s/%s.stdout", w->run_dir, m->name);
            m->out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
            snprintf(path, sizeof path, "%s/%s.stderr", w->run_dir, m->name);
            m->err_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
        }
    }
    for (size_t i = 0; i < c->nmachines && w->outcome == OUT_RUNNING; i++) {
        char why_disk[512];
        if (disk_mount(w, &w->machines[i], why_disk, sizeof why_disk) != 0) world_fail(w, OUT_INTERNAL, "%s", why_disk);
    }
    if (netsim_init(w) != 0) world_fail(w, OUT_INTERNAL, "cannot set up the network: %s", strerror(errno));
    /* One CPU for the whole run: only one tracee runs at a time anyway. */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
    sched_setaffinity(0, sizeof one, &one);
    *run = (struct run){ w, lock, false, false, NULL, drawn, ndrawn, NULL, 0 };
    return 0;
}

/* Judges the run, tears it down and fills r. */
static void run_end(struct config *c, const struct run_opts *o, struct seed_result *r, struct run *run)
{
    struct world *w = run->w;
    if (run->forked && (run->last_vtid = calloc(w->nmachines + 1, sizeof *run->last_vtid))) {
        for (size_t i = 0; i < w->nthreads + w->ndead; i++) {
            const struct thread *t = i < w->nthreads ? w->threads[i] : w->dead[i - w->nthreads];
            pid_t *last = &run->last_vtid[t->proc->m->index];
            if (t->vtid > *last) *last = t->vtid;
        }
    }
    note_run_dir_full(w, run_dir_bytes(c));
    if (w->outcome == OUT_RUNNING || w->outcome == OUT_PASS) judge(w);
    enum outcome before_teardown = w->outcome;
    teardown(w);
    netsim_free(w);
    for (size_t i = 0; i < w->nmachines; i++) { close(w->machines[i].out_fd); close(w->machines[i].err_fd); }
    if (!o->exec_stdio) fold_outputs(w);
    if (before_teardown == OUT_PASS && c->check_command && !o->skip_check) {
        int st = run_check(w, !o->quiet_check);
        r->check_output = check_output(w);
        if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            w->outcome = OUT_CHECK;
            snprintf(w->reason, sizeof w->reason, "the check command failed (%s %d)",
                     WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        }
    }
    trace_event(w->trace, w->now, "-", 0, "end %s", outcome_name(w->outcome));
    r->outcome = w->outcome;
    if (!(r->reason = strdup(w->reason))) abort();
    trace_hash_hex(w->trace, r->hash);
    r->sim_time_ns = w->now;
    r->steps = w->steps;
    if (w->nmachines == 1 && w->machines[0].exited) r->exit_status = w->machines[0].wstatus;
    if (w->outcome != OUT_PASS && !run->discard) r->report = make_report(w, o->recent ? o->recent : 20, o->rerun);
    struct fault_conf *fired = calloc(w->nfired + 1, sizeof *fired);
    for (size_t i = 0; i < w->nfired; i++) fired[i] = w->faults[w->fired[i]];
    r->plan = plan_to_json(fired, w->nfired);
    free(fired);
    r->ncrashes = w->ncrashes;
    if (o->keep_dir) keep_outputs(w, o->keep_dir);
    for (size_t i = 0; o->keep_dir && w->outcome != OUT_PASS && i < w->nmachines; i++)
        disk_keep(w, &w->machines[i], o->keep_dir);
    for (size_t i = 0; i < w->nmachines; i++) {
        oplog_clear(&w->machines[i].names);
        ftimes_free(&w->machines[i]);
        ipc_free(&w->machines[i]);
        unsynced_clear(&w->machines[i].unsynced);
        idmap_free(&w->machines[i].ids);
        free(w->machines[i].mount_devs);
        free(w->machines[i].mount_ids);
    }
    /* In the background, the run directory's removal detaches the disks
     * on it (rundir.c). */
    for (size_t i = 0; i < w->nmachines && !rundir_background() && !run->forked; i++) disk_unmount(w, &w->machines[i]);
    disk_layers_free(w);
    if (!run->forked) rundir_done(w->run_dir, run->lock);
    trace_free(w->trace);
    if (o->watch) o->watch->w = NULL;
    for (size_t i = 0; i < w->nthreads; i++) free(w->threads[i]);
    for (size_t i = 0; i < w->ndead; i++) free(w->dead[i]);
    free(w->dead);
    for (size_t i = 0; i < w->ndeadprocs; i++) {
        if (w->deadprocs[i]->sh) sighand_put(w->deadprocs[i]->sh);
        code_sites_put(w->deadprocs[i]->code);
        clock_map_put(w->deadprocs[i]->clock);
        free(w->deadprocs[i]->pf_text);
        free(w->deadprocs[i]);
    }
    free(w->deadprocs);
    for (size_t i = 0; i < w->nprocs; i++) {
        if (w->procs[i]->sh) sighand_put(w->procs[i]->sh);
        code_sites_put(w->procs[i]->code);
        clock_map_put(w->procs[i]->clock);
        free(w->procs[i]->pf_text);
        free(w->procs[i]);
    }
    free(w->threads);
    free(w->runnable);
    free(w->procs);
    free(w->machines);
    free(w->timerfds);
    free(w->ptimers);
    free(w->sock_timeouts);
    free(w->fault_fired);
    plan_free(run->drawn, run->ndrawn);
    plan_free(run->startup_drawn, run->nstartup_drawn);
    free(w->fired);
    free(w);
}

int run_seed(struct config *c, uint64_t seed, const struct run_opts *o, struct seed_result *r)
{
    struct run run;
    if (run_begin(c, seed, o, r, &run) != 0) return -1;
    steps_begin(run.w);
    loop(run.w, &fp);
    steps_end(run.w);
    run_end(c, o, r, &run);
    return 0;
}

/* ---- a warm start's start-up, for a snapshot ---- */

struct startup {
    struct config *c;
    struct run run;
};

struct startup *run_to_point(struct config *c, const struct run_opts *o, char *why, size_t len)
{
    struct startup *s = calloc(1, sizeof *s);
    struct seed_result r;
    if (!s) abort();
    s->c = c;
    /* The start-up is the start-up seed's whatever the seed (its streams
     * draw from warm_seed; the snapshot's fences leave no fault drawn). */
    if (run_begin(c, c->warm_seed, o, &r, &s->run) != 0) {
        snprintf(why, len, "the start-up could not run: %s", r.reason ? r.reason : "?");
        result_free(&r);
        free(s);
        return NULL;
    }
    result_free(&r);
    struct world *w = s->run.w;
    w->warm_stop = true;
    steps_begin(w);
    loop(w, &fp);
    steps_end(w);
    if (!w->at_point) {
        snprintf(why, len, "the start-up ended before the point (%s)", outcome_name(w->outcome));
        startup_end(s);
        return NULL;
    }
    return s;
}

struct world *startup_world(struct startup *s) { return s->run.w; }

void startup_forked(struct startup *s) { s->run.forked = true; }

/* The faults of a run from a warm start's point: the start-up drew its
 * [chaos] from its own seed (warm_seed), held until the point, none fired;
 * this seed's draws take their place, as a cold run of it draws them (the
 * point then drops those before it). The [fault]s stay, fired as they
 * fired in the start-up (one has fired exactly when it is in w->fired). */
static void redraw_chaos(struct run *run, const struct config *c, uint64_t seed)
{
    struct world *w = run->w;
    if (!c->chaos || w->faults != run->drawn) return;       /* a plan's are as given */
    size_t n = 0;
    struct fault_conf *v = faults_for_run(c, seed, &n);
    bool *fired = calloc(n + 1, sizeof *fired);
    size_t *order = calloc(n + 1, sizeof *order), norder = 0;
    if (!fired || !order) abort();
    for (size_t k = 0; k < w->nfired; k++) {
        const struct fault_conf *was = &w->faults[w->fired[k]];
        for (size_t j = 0; j < n; j++)
            if (!v[j].drawn && !was->drawn && !strcmp(v[j].name, was->name)) {
                fired[j] = true;
                order[norder++] = j;
            }
    }
    run->startup_drawn = run->drawn, run->nstartup_drawn = run->ndrawn;
    w->faults = run->drawn = v;
    w->nfaults = run->ndrawn = n;
    free(w->fault_fired);
    free(w->fired);
    w->fault_fired = fired;
    w->fired = order;
    w->nfired = norder;
}

void run_from_point(struct startup *s, uint64_t seed, const struct run_opts *o, struct seed_result *r)
{
    struct world *w = s->run.w;
    result_init(r);
    r->seed = seed;
    w->seed = seed;
    redraw_chaos(&s->run, s->c, seed);
    w->warm_stop = w->at_point = false;
    steps_begin(w);
    if (w->point_thread) {
        struct thread *t = w->point_thread;
        w->point_thread = NULL;
        step_from_point(w, t);
        after_step(w);
    } else {
        warm_point(w);
    }
    loop(w, &fp);
    steps_end(w);
    run_end(s->c, o, r, &s->run);
    if (!s->run.forked) free(s);
}

pid_t startup_last_vtid(const struct startup *s, int machine)
{
    return s->run.last_vtid ? s->run.last_vtid[machine] : 0;
}

void startup_end(struct startup *s)
{
    struct seed_result r;
    struct run_opts o = { .skip_check = true, .quiet_check = true };
    result_init(&r);
    s->run.discard = true;
    if (s->run.w->outcome == OUT_RUNNING) world_fail(s->run.w, OUT_INTERNAL, "a snapshot's start-up");
    run_end(s->c, &o, &r, &s->run);
    result_free(&r);
    free(s);
}
