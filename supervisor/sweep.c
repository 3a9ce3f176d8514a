/* A sweep: many seeds over worker processes. Seeds are handed out in order,
 * so "stop at the first failure" keeps its meaning in parallel: the lowest
 * failing seed wins, and every seed before it has run and passed. */
#include "supervisor/sweep.h"
#include "base/defines.h"
#include "supervisor/diverge.h"
#include "supervisor/explain.h"
#include "supervisor/hostcaps.h"
#include "base/results.h"
#include "supervisor/run.h"
#include "supervisor/rundir.h"
#include "supervisor/snapshot.h"
#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What the parent asks of a worker: run a seed, or (verify) run it again
 * and compare with the hash its first run had. */
struct job {
    size_t index;
    bool verify;
    char hash[33];
};

#define WORKER_DIED "the dsim worker running this seed died"

/* A worker answers each job with the seed's result (its index set), as
 * the length of result_pack's bytes and the bytes. */
struct worker { pid_t pid; int to, from; bool busy; int cpu; struct job job; };

static int write_all(int fd, const void *buf, size_t len)
{
    for (const char *p = buf; len > 0;) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
    for (char *p = buf; len > 0;) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static uint64_t now_ms(void) { return host_clock_ns(CLOCK_MONOTONIC) / 1000000; }

/* A result's line, whole, in one write (a stdio stream would flush a long
 * line in 4 KiB pieces): a sweep killed at any point leaves whole lines,
 * and perhaps a last one torn by the kernel, never a stdio block's worth. */
static void write_line(FILE *f, const char *json)
{
    size_t len = strlen(json);
    char *line = malloc(len + 2);
    if (!line) return;
    memcpy(line, json, len);
    memcpy(line + len, "\n", 2);
    fflush(f);
    write_all(fileno(f), line, len + 1);
    free(line);
}

/* Sends a job's result to the parent; -1 if the parent is gone. */
static int send_result(int out, const struct seed_result *r)
{
    size_t len;
    char *bytes = result_pack(r, &len);
    int status = write_all(out, &len, sizeof len) || write_all(out, bytes, len) ? -1 : 0;
    free(bytes);
    return status;
}

/* Reads a worker's answer into r; -1 if the worker died first. */
static int receive_result(int in, struct seed_result *r)
{
    size_t len;
    result_init(r);
    if (read_all(in, &len, sizeof len)) return -1;
    char *bytes = malloc(len ? len : 1);
    int status = !bytes || read_all(in, bytes, len) || result_unpack(bytes, len, r) ? -1 : 0;
    free(bytes);
    return status;
}

/* --verify-sample: the seed again (on whatever worker is free), compared
 * with its first run's hash; explained if it differs. */
static int verify_job(const struct sweep *s, const struct job *j, int out)
{
    struct run_opts ro = { .recent = 20, .plan = s->plan, .nplan = s->nplan, .use_plan = s->use_plan,
                           .quiet_check = true, .rerun = s->rerun };
    struct seed_result r;
    uint64_t start = now_ms();
    run_seed(s->conf, s->seeds[j->index], &ro, &r);
    struct run_opts base = { .plan = s->plan, .nplan = s->nplan, .use_plan = s->use_plan, .quiet_check = true };
    char *report = strcmp(r.hash, j->hash) ? explain_report(s->conf, &base, s->seeds[j->index], j->hash, &r) : NULL;
    /* The parent takes the hash, and the explanation as the report. */
    result_free(&r);
    r.report = report;
    r.index = (long)j->index;
    r.wall_ms = now_ms() - start;
    int status = send_result(out, &r);
    result_free(&r);
    return status;
}

/* What the workers said of this sweep's warm start (shared by them, so
 * that each thing is said once): [0] how it starts, [1] a snapshot
 * given up, [2] a seed run cold for a crash. */
static volatile int *warm_said;

static void warm_say(int which, const char *fmt, const char *why)
{
    if (warm_said && __sync_bool_compare_and_swap(&warm_said[which], 0, 1)) {
        fprintf(stderr, fmt, why);
        fflush(stderr);
    }
}

/* A warm start's start-up, run by a worker before its first seed: a
 * snapshot its seeds start from (*snap), or else (it says why) the
 * start-up goes on as the worker's first seed, which is the same run, and
 * the later seeds run cold. */
static struct startup *warm_begin(const struct sweep *s, const struct run_opts *ro, struct snapshot **snap)
{
    char why[1024];
    struct startup *su = NULL;
    *snap = NULL;
    if (!snapshot_config_fence(s->conf, ro, why, sizeof why) && (su = run_to_point(s->conf, ro, why, sizeof why)) &&
        (*snap = snapshot_make(su, why, sizeof why))) {
        warm_say(0, "dsim: warm start: seeds start from a snapshot of the point%s\n", "");
        return NULL;
    }
    if (su && startup_world(su)->outcome != OUT_RUNNING) {
        startup_end(su);
        su = NULL;
    }
    warm_say(0, "dsim: warm start: seeds run cold, not from a snapshot: %s\n", why);
    return su;
}

/* Runs seeds as the parent asks, one at a time, on its own CPU. */
static void worker_main(const struct sweep *s, int cpu, int in, int out)
{
    bool warm_tried = s->warm_cold || !config_warm(s->conf);
    struct snapshot *snap = NULL;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
    struct job job;
    while (!dsim_interrupted && read_all(in, &job, sizeof job) == 0) {
        size_t index = job.index;
        if (job.verify) {
            if (verify_job(s, &job, out)) { run_cleanup(0); _exit(1); }
            continue;
        }
        /* A failing check's output is in the report; passing ones stay quiet
         * (parallel checks would interleave with the reports). */
        struct run_opts ro = { .recent = 20, .plan = s->plan, .nplan = s->nplan, .use_plan = s->use_plan,
                               .quiet_check = true, .rerun = s->rerun };
        char dir[4096];
        if (s->output) {
            snprintf(dir, sizeof dir, "%s/seed-%" PRIu64, s->output, s->seeds[index]);
            ro.keep_dir = dir;
        }
        struct seed_result r;
        uint64_t start = now_ms();
        struct startup *su = NULL;
        if (!warm_tried) {
            warm_tried = true;
            su = warm_begin(s, &ro, &snap);
        }
        int from_snap = -1;
        char crash[300];
        if (snap && !snapshot_serves(snap, s->conf, s->seeds[index], crash, sizeof crash))
            warm_say(2, "dsim: warm start: a seed that crashes %s\n", crash);
        else if (snap) {
            char why[1024];
            if ((from_snap = snapshot_seed(snap, s->seeds[index], &ro, &r, why, sizeof why)) != 0) {
                /* An interrupted seed's helpers and copies took the signal
                 * too: nothing to say of the snapshot. */
                if (!dsim_interrupted)
                    warm_say(1, "dsim: warm start: the snapshot serves no more seeds, which run cold: %s\n", why);
                snapshot_free(snap);
                snap = NULL;
            }
        }
        if (su) run_from_point(su, s->seeds[index], &ro, &r);
        else if (from_snap < 0) run_seed(s->conf, s->seeds[index], &ro, &r);
        r.index = (long)index;
        r.wall_ms = now_ms() - start;
        free(r.plan);               /* the sweep has no use for it */
        r.plan = NULL;
        if (send_result(out, &r)) {
            if (snap) snapshot_free(snap);
            run_cleanup(0);         /* the parent is gone or interrupted */
            _exit(1);
        }
        result_free(&r);
    }
    if (snap) snapshot_free(snap);
    run_cleanup(0);
    _exit(0);
}

/* Starts worker i of n (w[i].cpu set); 0 or -1. */
static int start_worker(const struct sweep *s, struct worker *w, int n, int i)
{
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        /* Other workers' pipe ends would keep them from seeing EOF. */
        for (int k = 0; k < n; k++)
            if (k != i && w[k].pid > 0) { close(w[k].to); close(w[k].from); }
        close(to[1]);
        close(from[0]);
        worker_main(s, w[i].cpu, to[0], from[1]);
    }
    close(to[0]);
    close(from[1]);
    w[i].pid = pid;
    w[i].to = to[1];
    w[i].from = from[0];
    w[i].busy = false;
    return 0;
}

static int start_workers(const struct sweep *s, struct worker *w, int n)
{
    cpu_set_t allowed;
    int cpus[1024], ncpus = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 0; c < 1024; c++) if (CPU_ISSET(c, &allowed)) cpus[ncpus++] = c;
    if (ncpus == 0) cpus[ncpus++] = 0;
    for (int i = 0; i < n; i++) {
        w[i].cpu = cpus[i % ncpus];
        if (start_worker(s, w, n, i) != 0) return -1;
    }
    return 0;
}

/* A worker died with a seed in hand (dsim's own fault, or a kill from
 * outside): the seed fails, so the sweep cannot look green without it, and
 * a new worker takes the dead one's place. */
static void worker_died(const struct sweep *s, struct worker *w, int n, int k, char *why, size_t whylen)
{
    int status = 0;
    close(w[k].to);
    close(w[k].from);
    while (waitpid(w[k].pid, &status, 0) < 0 && errno == EINTR) {}
    snprintf(why, whylen, WORKER_DIED " (%s %d); dsim replay runs it alone",
             WIFSIGNALED(status) ? "signal" : "exit status", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    w[k].pid = -1;
    if (!dsim_interrupted && start_worker(s, w, n, k) != 0) w[k].pid = -1;
}

/* ---- the parent ---- */

/* A seed whose worker died (killed from outside, or dsim's own fault) says
 * nothing of the seed: a resumed sweep runs it again. */
static bool worker_death(const struct seed_result *r)
{
    return r->outcome == OUT_INTERNAL && r->reason &&
           !strncmp(r->reason, WORKER_DIED, strlen(WORKER_DIED));
}

/* A checkpoint is a header naming the sweep, then one JSON line per
 * finished seed, each written and flushed as soon as it is known: after a
 * kill, a rerun skips exactly the seeds whose line is complete. */
static FILE *checkpoint_open(const struct sweep *s, struct seed_result *res, bool *done, char *err, size_t errlen)
{
    char header[8192], sample[256] = "", options[4096] = "";
    /* A sample changes the sweep's results: a checkpoint names it (when
     * there is one, so older checkpoints still match); so do a plan, --tsc
     * and -D values. */
    if (s->sample_spec) snprintf(sample, sizeof sample, ",\"verify_sample\":\"%s\"", s->sample_spec);
    if (s->rerun && *s->rerun) {
        json_t *j = json_string(s->rerun);
        char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
        snprintf(options, sizeof options, ",\"options\":%s", text ? text : "\"\"");
        free(text);
        json_decref(j);
    }
    snprintf(header, sizeof header, "{\"dsim_checkpoint\":1,\"config\":\"%s\",\"seeds\":\"%s\",\"shard\":\"%s\"%s%s}",
             s->confpath, s->spec, s->shard, sample, options);
    FILE *f = fopen(s->checkpoint, "re");
    if (f) {
        char *line = NULL;
        size_t cap = 0;
        ssize_t len = getline(&line, &cap, f);
        if (len > 0 && line[len - 1] == '\n') line[--len] = 0;
        if (len >= 0 && strcmp(line, header) != 0) {
            snprintf(err, errlen, "%s belongs to another sweep (%s)", s->checkpoint, line);
            free(line);
            fclose(f);
            return NULL;
        }
        while ((len = getline(&line, &cap, f)) > 0) {
            if (line[len - 1] != '\n') break;          /* torn by a kill: redo that seed */
            struct seed_result r;
            if (result_from_json(line, &r) || r.index < 0 || (size_t)r.index >= s->nseeds ||
                r.seed != s->seeds[r.index] || worker_death(&r)) { result_free(&r); continue; }
            result_free(&res[r.index]);
            res[r.index] = r;
            done[r.index] = true;
        }
        free(line);
        fclose(f);
    }
    /* Rewrite it whole: drops a torn last line and keeps the header. */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", s->checkpoint);
    FILE *out = fopen(tmp, "we");
    if (!out) { snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno)); return NULL; }
    fprintf(out, "%s\n", header);
    for (size_t i = 0; i < s->nseeds; i++) {
        if (!done[i]) continue;
        char *j = result_to_json(&res[i], 1);
        fprintf(out, "%s\n", j);
        free(j);
    }
    if (fflush(out) || rename(tmp, s->checkpoint)) {
        snprintf(err, errlen, "cannot write %s: %s", s->checkpoint, strerror(errno));
        fclose(out);
        return NULL;
    }
    return out;
}

/* "dsim replay CONF SEED ..." with every option that changes the run. */
static char *rerun_command(const struct sweep *s, const char *cmd, uint64_t seed, const char *more)
{
    char *conf = shell_quote(s->confpath), *out;
    bool verify = !strcmp(cmd, "verify");
    if (asprintf(&out, "dsim %s %s %s%" PRIu64 "%s%s", cmd, conf, verify ? "--seed " : "", seed, more,
                 s->rerun ? s->rerun : "") < 0)
        out = NULL;
    free(conf);
    return out;
}

/* A seed's result came back: it is the sweep's, with the sweep's -D values
 * and, if it failed, the command that replays it. */
static void take_result(const struct sweep *s, struct seed_result *got, size_t index, struct seed_result *r)
{
    result_free(r);
    *r = *got;                      /* its texts are r's now */
    r->seed = s->seeds[index];
    r->index = (long)index;
    r->defines = s->vars ? strdup(s->vars) : NULL;
    if (r->outcome != OUT_PASS) {
        if (!r->report && !(r->report = strdup(""))) abort();  /* a failing seed's line has one */
        r->replay = rerun_command(s, "replay", r->seed, "");
    }
}

/* --verify-sample: the seed's re-run came back. Another hash fails the
 * seed, whatever its first run's outcome: the sweep's results cannot be
 * trusted to replay. */
static void take_verify(const struct sweep *s, struct seed_result *got, struct seed_result *r)
{
    snprintf(r->replay_hash, sizeof r->replay_hash, "%s", got->hash);
    r->replayed = strcmp(got->hash, r->hash) ? -1 : 1;
    if (r->replayed < 0) {
        char *was = NULL;
        if (r->outcome != OUT_PASS &&
            asprintf(&was, "  the sweep's run of it failed (%s): %s\n%s", outcome_name(r->outcome),
                     r->reason ? r->reason : "", r->report ? r->report : "") < 0)
            was = NULL;
        free(r->reason);
        free(r->report);
        free(r->replay);
        if (asprintf(&r->reason, "does not replay: the sweep's run had trace hash %s, a re-run %s", r->hash,
                     got->hash) < 0)
            r->reason = NULL;
        if (asprintf(&r->report, "%s%s", got->report ? got->report : "", was ? was : "") < 0) r->report = NULL;
        r->replay = rerun_command(s, "verify", r->seed, " --runs 5");
        r->outcome = OUT_NONDETERMINISTIC;
        free(was);
    }
    result_free(got);
}

/* With --keep-going, where the first few failing seeds part from passing
 * ones (each costs two traced runs). */
#define DIVERGENCES_SHOWN 5
/* Seeds tried beyond the sweep when none of it passed, and the real time
 * that search may take: as long as the failing seed took, and at least
 * this (a 3 s seed once made a 15 s wait for a report). */
#define PASSING_SEARCH 5
#define PASSING_SEARCH_MIN_MS 2000

/* Prints where failing seed slots[f] first went differently from the
 * nearest passing seed of the sweep (an earlier one if any did). When
 * none passed, seeds after it are tried until one passes, within the time
 * above. False if no seed to compare with was found. */
struct outside_pass { bool searched, found; uint64_t first, last, ms; };

/* Runs the seeds after `failing` until one passes, PASSING_SEARCH of them
 * or the time is up (at least one runs). */
static void search_passing(const struct sweep *s, const struct run_opts *quiet, uint64_t failing, uint64_t budget_ms,
                           struct outside_pass *out)
{
    uint64_t start = now_ms();
    out->searched = true;
    out->first = failing + 1;
    for (uint64_t k = 1; k <= PASSING_SEARCH && !dsim_interrupted; k++) {
        if (k > 1 && now_ms() - start >= budget_ms) break;
        struct seed_result r;
        run_seed(s->conf, failing + k, quiet, &r);
        out->found = r.outcome == OUT_PASS;
        out->last = failing + k;
        result_free(&r);
        if (out->found) break;
    }
    out->ms = now_ms() - start;
}

static bool divergence(const struct sweep *s, const struct seed_result *res, size_t flushed, size_t f,
                       struct outside_pass *outside)
{
    long near = -1;
    for (size_t i = f; i-- > 0;)
        if (res[i].outcome == OUT_PASS) { near = (long)i; break; }
    for (size_t i = f + 1; near < 0 && i < flushed; i++)
        if (res[i].outcome == OUT_PASS) near = (long)i;
    struct run_opts base = { .plan = s->plan, .nplan = s->nplan, .use_plan = s->use_plan };
    uint64_t failing = s->seeds[f], passing = 0;
    const char *how = "the nearest passing seed";
    if (near >= 0) passing = s->seeds[near];
    else {
        /* No seed of the sweep passed: look past the failing one (once). */
        struct run_opts quiet = base;
        quiet.quiet_check = true;
        uint64_t budget = res[f].wall_ms > PASSING_SEARCH_MIN_MS ? res[f].wall_ms : PASSING_SEARCH_MIN_MS;
        if (!outside->searched) search_passing(s, &quiet, failing, budget, outside);
        if (dsim_interrupted) return false;
        if (!outside->found) {
            char tried[64];
            if (outside->last > outside->first)
                snprintf(tried, sizeof tried, "seeds %" PRIu64 "-%" PRIu64, outside->first, outside->last);
            else
                snprintf(tried, sizeof tried, "seed %" PRIu64, outside->first);
            printf("  no passing seed to compare with: none of the sweep passed, nor %s", tried);
            if (outside->last < failing + PASSING_SEARCH)
                printf(" (the search gave up after %.1fs, the time the failing seed took or %ds)",
                       (double)outside->ms / 1000, PASSING_SEARCH_MIN_MS / 1000);
            char *conf = shell_quote(s->confpath);
            printf("\n  to compare with a seed that passes: dsim diff %s PASSING %" PRIu64 "%s\n", conf, failing,
                   s->rerun ? s->rerun : "");
            free(conf);
            return false;
        }
        passing = outside->last;
        how = "a passing seed outside the sweep";
    }
    printf("  seed %" PRIu64 ": first divergence from %s, %" PRIu64 ":\n", failing, how, passing);
    fflush(stdout);
    diverge_print(stdout, s->conf, &base, passing, "passing seed", failing, "failing seed", 3);
    return true;
}

static void take_dead(const struct sweep *s, size_t index, const char *why, struct seed_result *r)
{
    result_free(r);
    result_init(r);
    r->seed = s->seeds[index];
    r->index = (long)index;
    r->defines = s->vars ? strdup(s->vars) : NULL;
    r->outcome = OUT_INTERNAL;
    r->reason = strdup(why);
    snprintf(r->hash, sizeof r->hash, "%s", "-");
    r->replay = rerun_command(s, "replay", r->seed, "");
}

int sweep_run(const struct sweep *s)
{
    struct seed_result *res = calloc(s->nseeds ? s->nseeds : 1, sizeof *res);
    bool *done = calloc(s->nseeds ? s->nseeds : 1, sizeof *done);
    FILE *ckpt = NULL;
    if (s->checkpoint) {
        char err[8192];
        if (!(ckpt = checkpoint_open(s, res, done, err, sizeof err))) {
            fprintf(stderr, "dsim: %s\n", err);
            free(res);
            free(done);
            return 2;
        }
    }
    size_t first_fail = SIZE_MAX, todo = 0;
    for (size_t i = 0; i < s->nseeds; i++) {
        if (done[i] && res[i].outcome != OUT_PASS && i < first_fail) first_fail = i;
        if (!done[i]) todo++;
    }
    int n = s->jobs < 1 ? 1 : s->jobs;
    if ((size_t)n > todo) n = todo ? (int)todo : 1;
    struct worker *w = calloc((size_t)n, sizeof *w);
    if (s->output) mkdir(s->output, 0755);
    fflush(NULL);
    uint64_t started = now_ms();
    if (!warm_said && config_warm(s->conf) && !s->warm_cold) {
        void *shared = mmap(NULL, 3 * sizeof *warm_said, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (shared != MAP_FAILED) warm_said = shared;
    }
    if (warm_said) warm_said[0] = warm_said[1] = warm_said[2] = 0;
    if (todo && start_workers(s, w, n) != 0) { perror("dsim: cannot start workers"); return 2; }
    if (!todo) n = 0;

    size_t next = 0, flushed = 0, failed = 0;
    /* Sampled seeds whose first run is in, waiting for their second. */
    size_t *again = calloc(s->nseeds + 1, sizeof *again), nagain = 0;
    bool lost_workers = false;
    int died = 0;
    int busy = 0;
    for (;;) {
        /* Hand out second runs first, then seeds in order; after a
         * failure, only lower ones. */
        while (next < s->nseeds && done[next]) next++;   /* done in a checkpoint */
        size_t kept = 0;                /* past the first failure, a seed's result is dropped */
        for (size_t i = 0; i < nagain; i++)
            if (s->keep_going || again[i] <= first_fail) again[kept++] = again[i];
        nagain = kept;
        for (int k = 0; k < n && !dsim_interrupted; k++) {
            while (next < s->nseeds && done[next]) next++;
            if (w[k].busy || w[k].pid < 0) continue;
            struct job job = { .index = next };
            if (nagain) {
                job = (struct job){ .index = again[0], .verify = true };
                memcpy(job.hash, res[job.index].hash, sizeof job.hash);
            } else if (next >= s->nseeds || (!s->keep_going && next > first_fail)) {
                continue;
            }
            if (write_all(w[k].to, &job, sizeof job)) continue;
            w[k].busy = true;
            w[k].job = job;
            busy++;
            if (job.verify) memmove(again, again + 1, --nagain * sizeof *again);
            else next++;
        }
        struct pollfd pfd[256];
        if (busy > 0) {
            for (int k = 0; k < n; k++) pfd[k] = (struct pollfd){ w[k].pid > 0 ? w[k].from : -1, POLLIN, 0 };
            if (poll(pfd, (nfds_t)n, -1) < 0) { if (errno == EINTR && !dsim_interrupted) continue; break; }
        }
        for (int k = 0; k < n && busy > 0; k++) {
            if (!(pfd[k].revents & (POLLIN | POLLHUP)) || !w[k].busy) continue;
            struct seed_result got;
            size_t index = w[k].job.index;
            w[k].busy = false;
            busy--;
            if (receive_result(w[k].from, &got) == 0) {
                if (w[k].job.verify) take_verify(s, &got, &res[index]);
                else take_result(s, &got, index, &res[index]);
                /* A sampled seed is done once its second run is in. */
                done[index] = w[k].job.verify || !s->sampled || !s->sampled[index];
                if (!done[index]) again[nagain++] = index;
            } else if (dsim_interrupted) {
                continue;
            } else {
                char why[256];
                worker_died(s, w, n, k, why, sizeof why);
                died++;
                take_dead(s, index, why, &res[index]);
                done[index] = true;
            }
            if (!done[index]) continue;
            if (ckpt) {
                char *j = result_to_json(&res[index], 1);
                if (j) write_line(ckpt, j);
                free(j);
            }
            if (res[index].outcome != OUT_PASS && index < first_fail) first_fail = index;
        }
        /* Report in seed order as results become contiguous. */
        while (flushed < s->nseeds && done[flushed] && (s->keep_going || flushed <= first_fail)) {
            struct seed_result *r = &res[flushed];
            snprintf(r->shard, sizeof r->shard, "%s", s->shard ? s->shard : "");
            r->sweep_seeds = s->sweep_seeds;
            if (s->results) {
                char *j = result_to_json(r, 0);
                if (j) write_line(s->results, j);
                free(j);
            }
            if (r->outcome == OUT_PASS) {
                /* A passing seed's check output, in seed order (a failing
                 * one's is in its report). */
                if (r->check_output && *r->check_output) {
                    if (s->progress) { fputs("\r\033[K", stderr); fflush(stderr); }
                    fputs(r->check_output, stdout);
                    fflush(stdout);
                }
            }
            else {
                failed++;
                if (s->progress) { fputs("\r\033[K", stderr); fflush(stderr); }   /* not after the progress line */
                result_print_failure(stdout, r);
                fflush(stdout);
            }
            flushed++;
        }
        if (s->progress) {
            double secs = (double)(now_ms() - started) / 1000, rate = secs > 0 ? (double)flushed / secs : 0;
            fprintf(stderr, "\r%zu/%zu seeds, %.1f seeds/s, %zu failed, ETA %.0fs ", flushed, s->nseeds, rate,
                    failed, rate > 0 ? (double)(s->nseeds - flushed) / rate : 0.0);
            fflush(stderr);
        }
        if (busy == 0 && (dsim_interrupted || (!nagain && (next >= s->nseeds || (!s->keep_going && next > first_fail)))))
            break;
        int live = 0;
        for (int k = 0; k < n; k++) live += w[k].pid > 0;
        if (busy == 0 && live == 0) {
            fprintf(stderr, "dsim: no worker left to run the rest of the sweep\n");
            lost_workers = true;
            break;
        }
    }
    if (s->progress) fputc('\n', stderr);
    for (int k = 0; k < n; k++) if (w[k].pid > 0) { close(w[k].to); close(w[k].from); }
    for (int k = 0; k < n; k++) {
        if (w[k].pid <= 0) continue;
        if (dsim_interrupted) kill(w[k].pid, SIGTERM);
        while (waitpid(w[k].pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    /* A worker killed from outside left its run directory, unlocked once
     * the children that share its lock (PR_SET_PDEATHSIG) are gone: up to
     * a second for them. */
    for (int tries = 0, removed = 0; died > 0 && tries < 50; tries++) {
        int now = rundir_remove_stale_now();
        removed += now;
        if (removed >= died && now == 0) break;
        nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
    }
    if (s->results) fflush(s->results);
    if (ckpt) fclose(ckpt);
    if (s->junit) {
        junit_write(s->junit, s->confpath, res, flushed, (double)(now_ms() - started) / 1000);
        fflush(s->junit);
    }
    if (!dsim_interrupted && failed) {
        size_t shown = 0;
        struct outside_pass outside = { 0 };
        for (size_t i = 0; i < flushed && shown < DIVERGENCES_SHOWN && !dsim_interrupted; i++) {
            if (res[i].outcome == OUT_PASS || (!s->keep_going && i != first_fail)) continue;
            if (res[i].outcome == OUT_INTERNAL) continue;   /* not the seed's doing */
            if (res[i].replayed < 0) continue;      /* its report says where its own runs parted */
            if (shown++ == 0 && s->keep_going) printf("where the failing seeds first went differently:\n");
            if (!divergence(s, res, flushed, i, &outside)) break;
        }
        if (failed > shown && shown == DIVERGENCES_SHOWN && s->keep_going && !dsim_interrupted)
            printf("  (shown for the first %d failing seeds; dsim diff CONF PASSING FAILING%s shows any other)\n",
                   DIVERGENCES_SHOWN, s->rerun ? s->rerun : "");
    }
    int status;
    if (dsim_interrupted) {
        status = 128 + dsim_interrupted;
        fprintf(stderr, "dsim: interrupted: %zu of %zu seeds done (%zu failed)%s\n", flushed, s->nseeds, failed,
                s->checkpoint ? "; the same command resumes from the checkpoint" : "");
    } else {
        status = result_summary(stdout, res, flushed, s->nseeds, s->keep_going, s->sampled != NULL);
    }
    if (lost_workers) status = 2;
    for (size_t i = 0; i < s->nseeds; i++) result_free(&res[i]);
    free(res);
    free(done);
    free(again);
    free(w);
    return status;
}
