/* Priority-inheritance futexes (FUTEX_LOCK_PI, TRYLOCK_PI, UNLOCK_PI,
 * LOCK_PI2): three threads share a PTHREAD_PRIO_INHERIT mutex, each adding
 * to a counter with a system call inside the lock, so that they contend
 * and the lock is handed over in the kernel's (here dsim's) unlock; then
 * trylock and timedlock on a held mutex, and the raw calls' errors. One
 * line per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define THREADS 3
#define ROUNDS 200

static pthread_mutex_t m;
static long counter;

static void show(const char *what, long r)
{
    printf("%-44s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
    fflush(stdout);
}

static void *adder(void *arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&m);
        long c = counter;
        getppid();              /* a step inside the lock: others contend */
        counter = c + 1;
        pthread_mutex_unlock(&m);
    }
    return arg;
}

static void *try_while_held(void *arg)
{
    int r = pthread_mutex_trylock(&m);
    printf("%-44s %s\n", "trylock while held", strerrorname_np(r));
    struct timespec past;
    clock_gettime(CLOCK_REALTIME, &past);
    past.tv_sec -= 1;
    r = pthread_mutex_timedlock(&m, &past);
    printf("%-44s %s\n", "timedlock, a past time, while held", strerrorname_np(r));
    fflush(stdout);
    return arg;
}

static long futex(uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&m, &a);

    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&th[i], NULL, adder, NULL);
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    printf("%-44s %ld of %d\n", "counter", counter, THREADS * ROUNDS);

    pthread_mutex_lock(&m);
    pthread_t t;
    pthread_create(&t, NULL, try_while_held, NULL);
    pthread_join(t, NULL);
    pthread_mutex_unlock(&m);

    /* The raw calls. */
    uint32_t word = 0;
    pid_t me = (pid_t)syscall(SYS_gettid);
    show("LOCK_PI on a free word", futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, NULL));
    printf("%-44s %s\n", "  the word names the caller", word == (uint32_t)me ? "yes" : "no");
    show("LOCK_PI again (own)", futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, NULL));
    show("TRYLOCK_PI (own)", futex(&word, FUTEX_TRYLOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL));
    show("UNLOCK_PI", futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL));
    printf("%-44s %u\n", "  the word after", word);
    show("UNLOCK_PI not the owner", futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL));
    word = FUTEX_OWNER_DIED;
    show("LOCK_PI, owner died", futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, NULL));
    printf("%-44s %s\n", "  OWNER_DIED kept", word == (FUTEX_OWNER_DIED | (uint32_t)me) ? "yes" : "no");
    futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL);
    show("LOCK_PI, no such owner", (word = 999999, futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, NULL)));
    show("LOCK_PI misaligned", futex((uint32_t *)((char *)&word + 1), FUTEX_LOCK_PI_PRIVATE, 0, NULL));
    show("LOCK_PI bad address", futex((uint32_t *)8, FUTEX_LOCK_PI_PRIVATE, 0, NULL));
    show("LOCK_PI with FUTEX_CLOCK_REALTIME", futex(&word, FUTEX_LOCK_PI_PRIVATE | FUTEX_CLOCK_REALTIME, 0, NULL));
    word = 0;
    show("LOCK_PI2 on a free word", futex(&word, FUTEX_LOCK_PI2 | FUTEX_PRIVATE_FLAG, 0, NULL));
    show("UNLOCK_PI", futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL));
    return 0;
}
