/* thread_journal: threads that take turns at a journal in the working
 * directory; what it prints is the order the schedule gave them.
 *
 * Usage: thread_journal [THREADS [ROUNDS]]   (THREADS 1..8, default 4;
 * ROUNDS default 20). Each thread does ROUNDS times: lock a mutex, append
 * "T.R" to journal.txt (a relative path, opened O_APPEND), fsync it every
 * fifth round, unlock, then sleep 0..999 us (drawn from getrandom) and pass
 * a token to a logger thread over a pipe. The logger counts tokens and
 * signals a condition variable when all have come. Then main reads the
 * journal back and prints:
 *
 *     cwd DIR                 the working directory (getcwd)
 *     env N NAME...           how many variables it got, and their names
 *     cpus N                  sysconf(_SC_NPROCESSORS_ONLN)
 *     tmp ok                  a file made with mkstemp in $TMPDIR or /tmp
 *                             could be written, read back and removed
 *     journal T.R T.R ...     the journal, in file order
 *     tokens N                tokens the logger counted (THREADS * ROUNDS)
 *     ok
 *
 * Natively the journal order depends on the host's scheduler; under dsim it
 * depends on the seed only. Exit 0 if every check passed, 1 otherwise, 2 on
 * a usage or setup error. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int nthreads = 4, rounds = 20;
static int journal = -1, tokens[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int counted;

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    for (int r = 0; r < rounds; r++) {
        char entry[32];
        int n = snprintf(entry, sizeof entry, "%d.%d\n", id, r);
        pthread_mutex_lock(&lock);
        if (write(journal, entry, (size_t)n) != n) { perror("write journal"); exit(2); }
        if (r % 5 == 4 && fsync(journal) != 0) { perror("fsync"); exit(2); }
        pthread_mutex_unlock(&lock);
        unsigned short us;
        if (getrandom(&us, sizeof us, 0) != sizeof us) { perror("getrandom"); exit(2); }
        struct timespec ts = { 0, (long)(us % 1000) * 1000 };
        nanosleep(&ts, NULL);
        char token = 't';
        if (write(tokens[1], &token, 1) != 1) { perror("write token"); exit(2); }
    }
    return NULL;
}

static void *logger(void *arg)
{
    (void)arg;
    char token;
    for (int i = 0; i < nthreads * rounds; i++) {
        if (read(tokens[0], &token, 1) != 1) { perror("read token"); exit(2); }
        pthread_mutex_lock(&done_lock);
        if (++counted == nthreads * rounds) pthread_cond_signal(&done_cond);
        pthread_mutex_unlock(&done_lock);
    }
    return NULL;
}

static int tmp_file_works(void)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[4096], back[8] = "";
    snprintf(path, sizeof path, "%s/thread_journal.XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0) return 0;
    int ok = write(fd, "hello", 5) == 5 && pread(fd, back, 5, 0) == 5 && !strcmp(back, "hello");
    close(fd);
    return unlink(path) == 0 && ok;
}

int main(int argc, char **argv)
{
    if (argc > 1) nthreads = atoi(argv[1]);
    if (argc > 2) rounds = atoi(argv[2]);
    if (nthreads < 1 || nthreads > 8 || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "usage: thread_journal [THREADS [ROUNDS]]\n");
        return 2;
    }
    journal = open("journal.txt", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (journal < 0 || pipe(tokens) != 0) { perror("journal.txt"); return 2; }

    char cwd[4096];
    printf("cwd %s\n", getcwd(cwd, sizeof cwd) ? cwd : "?");
    int nenv = 0;
    for (char **e = environ; *e; e++) nenv++;
    printf("env %d", nenv);
    for (char **e = environ; *e; e++) printf(" %.*s", (int)strcspn(*e, "="), *e);
    printf("\ncpus %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
    int tmp_ok = tmp_file_works();
    printf("tmp %s\n", tmp_ok ? "ok" : "FAILED");

    pthread_t log, th[8];
    pthread_create(&log, NULL, logger, NULL);
    for (int i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, worker, (void *)(long)i);
    pthread_mutex_lock(&done_lock);
    while (counted < nthreads * rounds) pthread_cond_wait(&done_cond, &done_lock);
    pthread_mutex_unlock(&done_lock);
    for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
    pthread_join(log, NULL);
    close(journal);

    FILE *f = fopen("journal.txt", "r");
    if (!f) { perror("journal.txt"); return 2; }
    char line[64];
    int lines = 0;
    printf("journal");
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        printf(" %s", line);
        lines++;
    }
    fclose(f);
    printf("\ntokens %d\n", counted);
    int ok = tmp_ok && lines == nthreads * rounds && counted == nthreads * rounds;
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
