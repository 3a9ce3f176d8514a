/* A run's verdict and what a person reads about it: the deadlock report,
 * the check, the failure report, and the outputs folded into the hash. */
#include "supervisor/report.h"
#include "base/defines.h"
#include "base/plan.h"
#include "disk/durable.h"
#include "supervisor/stack.h"
#include "supervisor/step.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A held thread is a vfork parent waiting for its child, or a leader that
 * called exit before its other threads (no notice until they are gone). */
static bool exited_leader(const struct thread *t)
{
    return t == t->proc->leader && t->proc->leader_zombie;
}

#define EXITED_LEADER "has exited (its process lives on in its other threads)"

void report_deadlock(struct world *w)
{
    size_t off = (size_t)snprintf(w->reason, sizeof w->reason,
                                  "deadlock: no thread can run and nothing is scheduled");
    w->outcome = OUT_DEADLOCK;
    for (size_t i = 0; i < w->nthreads && off < sizeof w->reason - 200; i++) {
        struct thread *t = w->threads[i];
        if (t->state != TS_BLOCKED && t->state != TS_HELD) continue;
        if (t->state == TS_HELD && exited_leader(t)) {
            off += (size_t)snprintf(w->reason + off, sizeof w->reason - off, "\n  machine %s thread %d " EXITED_LEADER,
                                    t->proc->m->name, t->vtid);
            continue;
        }
        char call[256], stack[2048] = "";
        if (t->state == TS_BLOCKED) format_call(w, t, call, sizeof call);
        else snprintf(call, sizeof call, "vfork (waiting for its child)");
        stack_format(t->tid, stack, sizeof stack);
        off += (size_t)snprintf(w->reason + off, sizeof w->reason - off,
                                "\n  machine %s thread %d blocked in %s\n%s", t->proc->m->name,
                                t->vtid, call, stack);
    }
}

/* Threads listed per machine in a time-limit report. */
#define TIMEOUT_THREADS 12

static void describe_exit(char *buf, size_t len, const char *name, int status)
{
    if (WIFSIGNALED(status))
        snprintf(buf, len, "machine %s was killed by signal %d (SIG%s)", name, WTERMSIG(status),
                 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
    else
        snprintf(buf, len, "machine %s exited with status %d", name, WEXITSTATUS(status));
}

void report_timeout(struct world *w, uint64_t limit)
{
    size_t off = (size_t)snprintf(w->reason, sizeof w->reason, "simulated time limit of %.3fs passed",
                                  (double)limit / 1e9);
    w->outcome = OUT_TIMEOUT;
    /* A machine that failed before is the news: the time limit came only
     * because another one went on. */
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        if (m->conf->daemon || !m->exited || (WIFEXITED(m->wstatus) && WEXITSTATUS(m->wstatus) == 0)) continue;
        describe_exit(w->reason, sizeof w->reason, m->name, m->wstatus);
        off = strlen(w->reason);
        off += (size_t)snprintf(w->reason + off, sizeof w->reason - off,
                                "; then the simulated time limit of %.3fs passed", (double)limit / 1e9);
        w->outcome = OUT_EXIT;
        break;
    }
    for (size_t i = 0; i < w->nmachines && off < sizeof w->reason - 300; i++) {
        struct machine *m = &w->machines[i];
        if (m->conf->daemon || m->exited) continue;
        if (!m->started) {
            off += (size_t)snprintf(w->reason + off, sizeof w->reason - off, "\n  machine %s %s", m->name,
                                    m->incarnation || m->crashing ? "was down (crashed, not restarted yet)"
                                                                  : "had not started");
            continue;
        }
        off += (size_t)snprintf(w->reason + off, sizeof w->reason - off, "\n  machine %s had not exited:", m->name);
        int shown = 0;
        for (size_t k = 0; k < w->nthreads && off < sizeof w->reason - 300; k++) {
            struct thread *t = w->threads[k];
            if (t->proc->m != m || (t->state != TS_BLOCKED && t->state != TS_READY && t->state != TS_HELD)) continue;
            if (shown++ == TIMEOUT_THREADS) {
                off += (size_t)snprintf(w->reason + off, sizeof w->reason - off, "\n  (more threads not shown)");
                break;
            }
            if (t->state == TS_HELD && exited_leader(t)) {
                off += (size_t)snprintf(w->reason + off, sizeof w->reason - off,
                                        "\n  machine %s thread %d " EXITED_LEADER, m->name, t->vtid);
                continue;
            }
            char call[256], stack[1024] = "";
            if (t->state == TS_HELD) snprintf(call, sizeof call, "vfork (waiting for its child)");
            else format_call(w, t, call, sizeof call);
            stack_format(t->tid, stack, sizeof stack);
            if (t->state == TS_BLOCKED)
                off += (size_t)snprintf(w->reason + off, sizeof w->reason - off,
                                        "\n  machine %s thread %d blocked since %.6fs in %s\n%s", m->name, t->vtid,
                                        (double)t->blocked_since / 1e9, call, stack);
            else
                off += (size_t)snprintf(w->reason + off, sizeof w->reason - off,
                                        "\n  machine %s thread %d %s %s\n%s", m->name, t->vtid,
                                        t->state == TS_HELD ? "held in" : "about to call", call, stack);
        }
    }
}

void fold_outputs(struct world *w)
{
    char path[512], buf[65536];
    for (size_t i = 0; i < w->nmachines; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/%s.%s", w->run_dir, w->machines[i].name, k ? "stderr" : "stdout");
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            ssize_t n;
            while ((n = read(fd, buf, sizeof buf)) > 0) trace_hash_bytes(w->trace, buf, (size_t)n);
            close(fd);
        }
}

/* The check's output is collected in the run directory and printed in one
 * write once it exits: parallel workers' checks must not interleave. */
int run_check(struct world *w, bool print)
{
    char out[512];
    snprintf(out, sizeof out, "%s/check.out", w->run_dir);
    pid_t pid = fork();
    if (pid == 0) {
        char seed[32];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)w->seed);
        setenv("DSIM_SEED", seed, 1);
        setenv("DSIM_CONFIG_DIR", w->conf->dir, 1);
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (chdir(w->run_dir) != 0 || fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(126);
        close(fd);
        execl("/bin/sh", "sh", "-c", w->conf->check_command, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    int fd = open(out, O_RDONLY | O_CLOEXEC);
    struct stat st;
    char *text = fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0 ? malloc((size_t)st.st_size) : NULL;
    ssize_t n = text && print ? read(fd, text, (size_t)st.st_size) : 0;
    for (ssize_t off = 0, k; off < n; off += k)
        if ((k = write(1, text + off, (size_t)(n - off))) <= 0) break;
    free(text);
    if (fd >= 0) close(fd);
    return status;
}

#define CHECK_OUTPUT_MAX 65536
char *check_output(struct world *w)
{
    char path[512];
    snprintf(path, sizeof path, "%s/check.out", w->run_dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
        if (fd >= 0) close(fd);
        return NULL;
    }
    off_t from = st.st_size > CHECK_OUTPUT_MAX ? st.st_size - CHECK_OUTPUT_MAX : 0;
    char *text = calloc(1, (size_t)(st.st_size - from) + 1);
    ssize_t n = text ? pread(fd, text, (size_t)(st.st_size - from), from) : -1;
    close(fd);
    if (n <= 0) { free(text); return NULL; }
    text[n] = 0;
    return text;
}

void judge(struct world *w)
{
    if (w->outcome != OUT_RUNNING) return;
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        if (m->conf->daemon || !m->exited) continue;
        if (WIFEXITED(m->wstatus) && WEXITSTATUS(m->wstatus) == 0) continue;
        w->outcome = OUT_EXIT;
        describe_exit(w->reason, sizeof w->reason, m->name, m->wstatus);
        return;
    }
    w->outcome = OUT_PASS;
}

/* The last lines of a file, under a title, indented. */
#define TAIL_LINES 10
static void print_tail(FILE *f, const char *path, const char *title)
{
    char line[1024], *lines[TAIL_LINES] = { 0 };
    size_t nl = 0;
    FILE *in = fopen(path, "r");
    if (!in) return;
    while (fgets(line, sizeof line, in)) {
        free(lines[nl % TAIL_LINES]);
        lines[nl % TAIL_LINES] = strdup(line);
        nl++;
    }
    fclose(in);
    if (nl) fprintf(f, "  %s (last lines):\n", title);
    for (size_t j = nl > TAIL_LINES ? nl - TAIL_LINES : 0; j < nl; j++) {
        fputs("    ", f);
        /* Control bytes shown, not sent: an escape sequence in a machine's
         * output must not drive the reader's terminal. */
        for (const unsigned char *c = (const unsigned char *)lines[j % TAIL_LINES]; *c && *c != '\n'; c++) {
            if (*c < 0x20 && *c != '\t') fprintf(f, "\\x%02x", *c);
            else if (*c == 0x7f) fputs("\\x7f", f);
            else fputc(*c, f);
        }
        fputc('\n', f);
    }
    for (int j = 0; j < TAIL_LINES; j++) free(lines[j]);
}

static bool ended_normally(const struct machine *m)
{
    return m->exited && WIFEXITED(m->wstatus) && WEXITSTATUS(m->wstatus) == 0;
}

/* "TIME MACHINE TID TEXT" without its time. */
static const char *untimed(const char *line)
{
    const char *machine;
    trace_line_text(line, &machine);
    return machine ? machine : line;
}

static bool clock_read(const char *line) { return trace_is_clock_read(trace_line_text(line, NULL)); }

/* The last `recent` events the run kept, oldest first, read for a person:
 * clock reads (a runtime's timer loop can fill the window) are counted
 * rather than shown, and a cycle of up to 3 events that repeats (a sleep
 * loop: blocks, = 0, blocks, ...) is shown once with its count. */
#define CYCLE_MAX 3

/* The calls a process makes as it ends (closing, reaping, exiting). */
static bool shutdown_call(const char *text)
{
    static const char *const calls[] = { "close(", "exit_group(", "exit(", "wait4(", "waitid(", "munmap(",
                                         "rt_sigprocmask(", "rt_sigaction(", "signal CHLD", "machine exit status 0",
                                         "fsync(", "fdatasync(", "futex(", "madvise(" };
    for (size_t i = 0; text && i < sizeof calls / sizeof *calls; i++)
        if (!strncmp(text, calls[i], strlen(calls[i]))) return true;
    return false;
}

/* Whether line is an event of a machine that exited with status 0, in the
 * run of shutdown calls that ends its trace: noise beside the failure.
 * ending[i] is true while machine i's newest events are still such calls. */
static bool shutdown_noise(struct world *w, const char *line, bool *ending)
{
    const char *machine, *text = trace_line_text(line, &machine);
    if (!machine) return false;
    size_t len = strcspn(machine, " ");
    for (size_t i = 0; i < w->nmachines; i++) {
        if (strlen(w->machines[i].name) != len || strncmp(w->machines[i].name, machine, len)) continue;
        if (!ending[i]) return false;
        ending[i] = shutdown_call(text);
        return ending[i];
    }
    return false;
}

static void print_recent(FILE *f, struct world *w, size_t recent)
{
    size_t cap = recent * REPORT_RING_FACTOR, n = 0, clock_reads = 0, noise = 0;
    const char **v = calloc(cap + 1, sizeof *v);        /* newest first */
    bool *ending = calloc(w->nmachines + 1, sizeof *ending);
    for (size_t i = 0; i < w->nmachines; i++) ending[i] = ended_normally(&w->machines[i]);
    for (size_t k = 0; n < cap && trace_recent(w->trace, k); k++) {
        const char *line = trace_recent(w->trace, k);
        if (clock_read(line)) clock_reads++;
        else if (shutdown_noise(w, line, ending)) noise++;
        else v[n++] = line;
    }
    free(ending);
    struct item { size_t at, len, reps; } *items = calloc(n + 1, sizeof *items);
    size_t ni = 0, shown = 0;
    for (size_t i = 0; i < n && shown < recent;) {
        struct item best = { i, 1, 1 };
        for (size_t len = 1; len <= CYCLE_MAX; len++) {
            size_t reps = 1;
            for (;; reps++) {
                size_t j = 0;
                while (j < len && i + reps * len + j < n && !strcmp(untimed(v[i + j]), untimed(v[i + reps * len + j]))) j++;
                if (j < len) break;
            }
            if (reps > 1 && reps * len > best.reps * best.len) best = (struct item){ i, len, reps };
        }
        items[ni++] = best;
        shown += best.len;
        i += best.len * best.reps;
    }
    if (ni)
        fprintf(f, "  last events%s%s%s:\n", clock_reads ? " (clock reads left out" : "",
                noise ? (clock_reads ? "; so are the exits of machines that ended with status 0" :
                                       " (the exits of machines that ended with status 0 left out") : "",
                clock_reads || noise ? ")" : "");
    while (ni-- > 0) {
        struct item it = items[ni];
        size_t oldest = it.at + (it.reps - 1) * it.len;
        for (size_t j = it.len; j-- > 0;) fprintf(f, "    %s\n", v[oldest + j]);
        if (it.reps > 1) {
            char until[32];
            snprintf(until, sizeof until, "%.*s", (int)strcspn(v[it.at], " "), v[it.at]);
            char what[48] = "repeated";
            if (it.len > 1) snprintf(what, sizeof what, "these %zu repeated", it.len);
            fprintf(f, "    (%s %zu more time%s, until %s)\n", what, it.reps - 1, it.reps == 2 ? "" : "s", until);
        }
    }
    free(items);
    free(v);
}

/* The faults that fired: when, which, on what. */
static void print_fired(FILE *f, struct world *w, const char *rerun)
{
    char who[512], *conf = shell_quote(w->conf->path);
    fprintf(f, "  faults that fired:\n");
    for (size_t i = 0; i < w->nfired; i++) {
        const struct fault_conf *fc = &w->faults[w->fired[i]];
        fprintf(f, "    %llu.%09llus %s: %s of %s\n", (unsigned long long)(fc->at_ns / 1000000000),
                (unsigned long long)(fc->at_ns % 1000000000), fc->name, fault_kind_name(fc->kind),
                fault_targets(fc, who, sizeof who));
    }
    fprintf(f, "  shrink them: dsim shrink %s %llu%s\n", conf, (unsigned long long)w->seed, rerun ? rerun : "");
    free(conf);
}

/* A machine that failed with files its crashes left torn, rolled back or
 * lost: it may have failed reading one (faithfully: a real crash does
 * that). CPython's never-fsynced bytecode caches are the common case. */
static void print_crash_damage(FILE *f, struct world *w)
{
    bool pycache = false;
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        if (!m->crash_damage[0] || ended_normally(m)) continue;
        fprintf(f, "  machine %s ran on after a crash that left files not durable (did it fail reading one?):\n",
                m->name);
        for (const char *p = m->crash_damage; *p;) {
            size_t n = strcspn(p, "\n");
            fprintf(f, "    %.*s\n", (int)n, p);
            pycache |= memmem(p, n, "__pycache__/", 12) || memmem(p, n, ".pyc ", 5);
            p += n + (p[n] == '\n');
        }
    }
    if (pycache)
        fprintf(f, "  hint: CPython writes __pycache__/*.pyc without fsync, so a crash can tear them (\"marshal data "
                   "too short\"): set env = PYTHONDONTWRITEBYTECODE=1 for every machine\n");
}

/* A warm start: the start-up is not this seed's own, and a failure there
 * is every seed's. */
static void print_warm(FILE *f, const struct world *w)
{
    uint64_t at = w->conf->warm_start_ns;
    if (!at) return;
    fprintf(f, "  warm start at %llu.%09llus: the run up to there is start-up seed %llu's, the same in every seed%s\n",
            (unsigned long long)(at / 1000000000), (unsigned long long)(at % 1000000000),
            (unsigned long long)w->startup_seed, w->warmed ? "" : " (this one ended before it: so will every seed)");
}

char *make_report(struct world *w, size_t recent, const char *rerun)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    char path[512], title[128];
    if (w->outcome == OUT_CHECK) {      /* what the check said is why the seed failed */
        snprintf(path, sizeof path, "%s/check.out", w->run_dir);
        print_tail(f, path, "check output");
    }
    /* What the machines said last, before the events that led there. */
    for (size_t i = 0; i < w->nmachines && !w->exec_stdio; i++)
        for (int k = 0; k < 2; k++) {
            const char *stream = k ? "stderr" : "stdout";
            snprintf(path, sizeof path, "%s/%s.%s", w->run_dir, w->machines[i].name, stream);
            snprintf(title, sizeof title, "machine %s %s", w->machines[i].name, stream);
            print_tail(f, path, title);
        }
    print_warm(f, w);
    if (w->crash[0]) fputs(w->crash, f);
    print_crash_damage(f, w);
    if (w->nfired) print_fired(f, w, rerun);
    print_recent(f, w, recent);
    fclose(f);
    return buf;
}

/* run_dir/name copied to dir/name if it exists: made anew in the user's
 * directory, never through a symlink there. */
static void keep_output(const struct world *w, const char *dir, const char *name)
{
    char src[sizeof w->run_dir + 300], dst[4400];
    snprintf(src, sizeof src, "%s/%s", w->run_dir, name);
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0) return;
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0 && unlink(dst) == 0) out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out >= 0 && disk_copy_fd(in, out) != 0) {}
    close(in);
    if (out >= 0) close(out);
}

/* In dsim's own process: a `cp` per seed (a fork and two execs) cost a
 * short seed's sweep a third of its time. */
void keep_outputs(struct world *w, const char *dir)
{
    char name[300];
    mkdir(dir, 0755);
    for (size_t i = 0; i < w->nmachines; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(name, sizeof name, "%s.%s", w->machines[i].name, k ? "stderr" : "stdout");
            keep_output(w, dir, name);
        }
    keep_output(w, dir, "check.out");
}

