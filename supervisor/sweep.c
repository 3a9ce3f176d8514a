/* A sweep: many seeds over worker processes. Seeds are handed out in order,
 * so "stop at the first failure" keeps its meaning in parallel: the lowest
 * failing seed wins, and every seed before it has run and passed. */
#include "supervisor/sweep.h"
#include "supervisor/run.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What a worker sends back for one seed; reason and report follow. */
struct record {
    size_t index;
    enum outcome outcome;
    uint64_t vtime_ns, steps, wall_ms;
    char hash[33];
    size_t reason_len, report_len;
};

struct result { struct record rec; char *reason, *report; bool done; };

struct worker { pid_t pid; int to, from; bool busy; };

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

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Runs seeds as the parent asks, one at a time, on its own CPU. */
static void worker_main(const struct sweep *s, int cpu, int in, int out)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
    size_t index;
    while (!dsim_interrupted && read_all(in, &index, sizeof index) == 0) {
        struct run_opts ro = { .recent = 20 };
        char dir[4096];
        if (s->output) {
            snprintf(dir, sizeof dir, "%s/seed-%" PRIu64, s->output, s->seeds[index]);
            ro.keep_dir = dir;
        }
        struct run_result r;
        uint64_t start = now_ms();
        run_seed(s->conf, s->seeds[index], &ro, &r);
        struct record rec = { index, r.outcome, r.vtime_ns, r.steps, now_ms() - start, "", 0, 0 };
        memcpy(rec.hash, r.hash, sizeof rec.hash);
        rec.reason_len = strlen(r.reason);
        rec.report_len = r.report ? strlen(r.report) : 0;
        if (write_all(out, &rec, sizeof rec) || write_all(out, r.reason, rec.reason_len) ||
            write_all(out, r.report ? r.report : "", rec.report_len))
            _exit(1);
        free(r.report);
    }
    _exit(0);
}

static int start_workers(const struct sweep *s, struct worker *w, int n)
{
    cpu_set_t allowed;
    int cpus[1024], ncpus = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 0; c < 1024; c++) if (CPU_ISSET(c, &allowed)) cpus[ncpus++] = c;
    if (ncpus == 0) cpus[ncpus++] = 0;
    for (int i = 0; i < n; i++) {
        int to[2], from[2];
        if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) return -1;
        pid_t pid = fork();
        if (pid < 0) return -1;
        if (pid == 0) {
            /* Earlier workers' pipe ends would keep them from seeing EOF. */
            for (int k = 0; k < i; k++) { close(w[k].to); close(w[k].from); }
            close(to[1]);
            close(from[0]);
            worker_main(s, cpus[i % ncpus], to[0], from[1]);
        }
        close(to[0]);
        close(from[1]);
        w[i] = (struct worker){ pid, to[1], from[0], false };
    }
    return 0;
}

static const char *outcome_word(enum outcome o)
{
    return o == OUT_PASS ? "pass" : outcome_name(o);
}

static void write_jsonl(FILE *f, uint64_t seed, const struct result *r)
{
    json_t *o = json_pack("{s:I, s:s, s:s, s:I, s:I, s:s, s:I}", "seed", (json_int_t)seed,
                          "outcome", outcome_word(r->rec.outcome), "reason", r->reason,
                          "sim_time_ns", (json_int_t)r->rec.vtime_ns, "steps", (json_int_t)r->rec.steps,
                          "hash", r->rec.hash, "wall_ms", (json_int_t)r->rec.wall_ms);
    char *line = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (line) fprintf(f, "%s\n", line);
    free(line);
    json_decref(o);
}

static void print_failure(const struct sweep *s, size_t i, const struct result *r)
{
    printf("seed %" PRIu64 " FAILED: %s\n", s->seeds[i], r->reason);
    printf("  simulated time %" PRIu64 ".%09" PRIu64 "s, %" PRIu64 " steps, trace hash %s\n",
           r->rec.vtime_ns / 1000000000, r->rec.vtime_ns % 1000000000, r->rec.steps, r->rec.hash);
    printf("  replay: dsim replay %s %" PRIu64 "\n", s->confpath, s->seeds[i]);
    fputs(r->report, stdout);
}

int sweep_run(const struct sweep *s)
{
    int n = s->jobs < 1 ? 1 : s->jobs;
    if ((size_t)n > s->nseeds) n = (int)s->nseeds;
    struct worker *w = calloc((size_t)n, sizeof *w);
    struct result *res = calloc(s->nseeds, sizeof *res);
    if (s->output) mkdir(s->output, 0755);
    fflush(NULL);
    if (start_workers(s, w, n) != 0) { perror("dsim: cannot start workers"); return 2; }

    size_t next = 0, flushed = 0, passed = 0, failed = 0, first_fail = SIZE_MAX;
    int busy = 0;
    for (;;) {
        /* Hand out seeds in order; after a failure, only lower ones. */
        for (int k = 0; k < n && !dsim_interrupted; k++) {
            if (w[k].busy || next >= s->nseeds || (!s->keep_going && next > first_fail)) continue;
            if (write_all(w[k].to, &next, sizeof next) == 0) { w[k].busy = true; busy++; next++; }
        }
        if (busy == 0) break;
        struct pollfd pfd[256];
        for (int k = 0; k < n; k++) pfd[k] = (struct pollfd){ w[k].from, POLLIN, 0 };
        if (poll(pfd, (nfds_t)n, -1) < 0) { if (errno == EINTR && !dsim_interrupted) continue; break; }
        for (int k = 0; k < n; k++) {
            if (!(pfd[k].revents & (POLLIN | POLLHUP)) || !w[k].busy) continue;
            struct record rec;
            w[k].busy = false;
            busy--;
            if (read_all(w[k].from, &rec, sizeof rec)) continue;      /* the worker died */
            struct result *r = &res[rec.index];
            r->rec = rec;
            r->reason = calloc(1, rec.reason_len + 1);
            r->report = calloc(1, rec.report_len + 1);
            read_all(w[k].from, r->reason, rec.reason_len);
            read_all(w[k].from, r->report, rec.report_len);
            r->done = true;
            if (rec.outcome != OUT_PASS && rec.index < first_fail) first_fail = rec.index;
        }
        /* Report in seed order as results become contiguous. */
        while (flushed < s->nseeds && res[flushed].done && (s->keep_going || flushed <= first_fail)) {
            struct result *r = &res[flushed];
            if (s->results) write_jsonl(s->results, s->seeds[flushed], r);
            if (r->rec.outcome == OUT_PASS) passed++;
            else { failed++; print_failure(s, flushed, r); }
            flushed++;
            if (!s->keep_going && flushed > first_fail) break;
        }
        if (s->progress) {
            fprintf(stderr, "\r%zu/%zu seeds, %zu failed", flushed, s->nseeds, failed);
            fflush(stderr);
        }
    }
    if (s->progress) fputc('\n', stderr);
    for (int k = 0; k < n; k++) { close(w[k].to); close(w[k].from); }
    for (int k = 0; k < n; k++) {
        if (dsim_interrupted) kill(w[k].pid, SIGTERM);
        while (waitpid(w[k].pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    if (s->results) fflush(s->results);
    int status = 0;
    if (dsim_interrupted) status = 128 + dsim_interrupted;
    else if (failed && !s->keep_going)
        printf("failed at seed %" PRIu64 " (%zu seeds passed first)\n", s->seeds[first_fail], passed);
    else if (failed)
        printf("dsim: %zu of %zu seeds failed\n", failed, s->nseeds);
    else
        printf("dsim: all %zu seeds passed\n", passed);
    if (!dsim_interrupted && failed) status = 1;
    for (size_t i = 0; i < s->nseeds; i++) { free(res[i].reason); free(res[i].report); }
    free(res);
    free(w);
    return status;
}
