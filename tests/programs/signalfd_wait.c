/* Waiting on a signalfd: poll, select and epoll see it readable only once
 * a signal of its mask is pending for the thread that asks (a signal sent
 * to another thread does not make it readable here, but there); a
 * signalfd in an epoll set with a pipe wakes the epoll_wait when another
 * thread sends the process a signal; a blocking read waits for one; a
 * handled signal outside the mask interrupts a blocking read (EINTR), or
 * restarts it under SA_RESTART; an edge-triggered signalfd reports each
 * new signal once. One line per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

static int fd;
static pthread_t main_thread;

static void show(const char *what, long r)
{
    printf("%-44s %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "-");
    fflush(stdout);
}

static int readable(int f, int ms)
{
    struct pollfd p = { f, POLLIN, 0 };
    return poll(&p, 1, ms);
}

static int take(int f)
{
    struct signalfd_siginfo si;
    ssize_t n = read(f, &si, sizeof si);
    return n == sizeof si ? (int)si.ssi_signo : -errno;
}

static void *send_later(void *arg)
{
    struct timespec ts = { 0, 30 * 1000000 };
    nanosleep(&ts, NULL);
    kill(getpid(), (int)(long)arg);
    return NULL;
}

static void *to_main_later(void *arg)
{
    struct timespec ts = { 0, 30 * 1000000 };
    nanosleep(&ts, NULL);
    pthread_kill(main_thread, (int)(long)arg);
    return NULL;
}

static pthread_barrier_t bar;

/* A thread that gets a signal of its own: readable for it, not for main. */
static void *own_signal(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar);         /* main sent it USR2 */
    pthread_barrier_wait(&bar);         /* main looked */
    show("other thread: poll finds its USR2", readable(fd, 0));
    show("other thread: read takes it", take(fd));
    return NULL;
}

static void on_alrm(int sig) { (void)sig; }

int main(void)
{
    main_thread = pthread_self();
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    sigaddset(&mask, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
    fd = signalfd(-1, &mask, SFD_NONBLOCK);

    show("poll, nothing pending, 50 ms", readable(fd, 50));
    fd_set rs;
    FD_ZERO(&rs);
    FD_SET(fd, &rs);
    struct timeval tv = { 0, 50000 };
    show("select, nothing pending", select(fd + 1, &rs, NULL, NULL, &tv));
    int ep = epoll_create1(0), p[2];
    if (pipe(p)) return 1;
    struct epoll_event ev = { EPOLLIN, { .u64 = 1 } }, out[4];
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    ev.data.u64 = 2;
    epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
    show("epoll_wait, nothing pending", epoll_wait(ep, out, 4, 50));

    raise(SIGUSR1);
    show("poll after raise", readable(fd, 0));
    FD_SET(fd, &rs);
    tv.tv_usec = 0;
    show("select after raise", select(fd + 1, &rs, NULL, NULL, &tv));
    int n = epoll_wait(ep, out, 4, 0);
    show("epoll_wait after raise", n);
    show("  its data", n > 0 ? (long)out[0].data.u64 : -1);
    show("read", take(fd));
    show("poll after the read", readable(fd, 0));

    /* Another thread sends the process a signal: the epoll_wait wakes. */
    pthread_t th;
    pthread_create(&th, NULL, send_later, (void *)(long)SIGUSR2);
    n = epoll_wait(ep, out, 4, -1);
    show("epoll_wait woken by another thread's kill", n);
    show("  its data", n > 0 ? (long)out[0].data.u64 : -1);
    show("read", take(fd));
    pthread_join(th, NULL);

    /* A signal for one thread is readable for that thread only. */
    pthread_barrier_init(&bar, NULL, 2);
    pthread_create(&th, NULL, own_signal, NULL);
    pthread_kill(th, SIGUSR2);
    pthread_barrier_wait(&bar);
    show("main: poll does not see the thread's USR2", readable(fd, 0));
    show("main: epoll_wait does not either", epoll_wait(ep, out, 4, 0));
    pthread_barrier_wait(&bar);
    pthread_join(th, NULL);

    /* A blocking read waits for a signal. */
    int bfd = signalfd(-1, &mask, 0);
    pthread_create(&th, NULL, send_later, (void *)(long)SIGUSR1);
    show("blocking read woken by a kill", take(bfd));
    pthread_join(th, NULL);

    /* A handled signal outside the mask cuts the read short, or restarts it. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alrm;
    sigaction(SIGALRM, &sa, NULL);
    pthread_create(&th, NULL, to_main_later, (void *)(long)SIGALRM);
    show("blocking read, handled SIGALRM", take(bfd));
    pthread_join(th, NULL);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    pthread_create(&th, NULL, to_main_later, (void *)(long)SIGALRM);
    pthread_t th2;
    pthread_create(&th2, NULL, send_later, (void *)(long)SIGUSR2);
    show("same under SA_RESTART, then USR2", take(bfd));
    pthread_join(th, NULL);
    pthread_join(th2, NULL);

    /* Edge-triggered: one event per new signal. */
    int et = epoll_create1(0);
    ev.events = EPOLLIN | EPOLLET;
    ev.data.u64 = 3;
    epoll_ctl(et, EPOLL_CTL_ADD, fd, &ev);
    raise(SIGUSR1);
    show("edge-triggered: first epoll_wait", epoll_wait(et, out, 4, 0));
    show("edge-triggered: second, nothing new", epoll_wait(et, out, 4, 0));
    raise(SIGUSR2);
    show("edge-triggered: after a new signal", epoll_wait(et, out, 4, 0));
    show("read", take(fd));
    show("read", take(fd));
    return 0;
}
