/* SIGKILL a child, then look at SIGCHLD before wait(). Natively whether the
 * SIGCHLD has arrived when kill() returns is a race; under dsim it must be
 * decided the same way on every run of a seed (dsim waits for the death
 * before the killer goes on, so it has always arrived). With --report the
 * count of kills whose SIGCHLD came before wait() is printed. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 100

static volatile sig_atomic_t chld;
static void on_chld(int sig) { (void)sig; chld++; }

int main(int argc, char **argv)
{
    int report = argc > 1 && !strcmp(argv[1], "--report");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_chld;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGCHLD, &sa, NULL);
    int early = 0;
    for (int i = 0; i < ROUNDS; i++) {
        pid_t c = fork();
        if (c < 0) { perror("fork"); return 1; }
        if (c == 0) { for (;;) pause(); }
        if (i % 2) usleep(100);    /* half the time the child is asleep in pause() */
        sig_atomic_t before = chld;
        if (kill(c, SIGKILL) != 0) { perror("kill"); return 1; }
        if (chld != before) early++;
        int st;
        if (waitpid(c, &st, 0) != c) { perror("waitpid"); return 1; }
        if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
            fprintf(stderr, "child %d: status 0x%x\n", i, st);
            return 1;
        }
    }
    if (report) printf("SIGCHLD before wait: %d/%d\n", early, ROUNDS);
    printf("ok\n");
    return 0;
}
