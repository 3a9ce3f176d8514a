/* warm_timerfd: a timerfd and a signalfd made before a warm start's point
 * and used after it (t_warm_snapshot.sh; the point: warm_start = 100ms,
 * in its sleep).
 *
 * Arms a periodic timerfd (first at 300 ms, then every 100 ms), leaves a
 * second one disarmed, blocks SIGUSR1 and makes a signalfd for it, and
 * sleeps 200 ms. Then prints what a timerfd_gettime says is left, the
 * expirations a blocking read of the first returns (at 300 ms) and, after
 * 250 ms more, a second read's; arms the second for 50 ms and reads it;
 * sends itself SIGUSR1 and reads it from the signalfd. Every line is the
 * same natively and under dsim (but the first's "left", which natively
 * is what the host's clock says). Exit 0, or 1 on a failed call. */
#include "plainprog.h"
#include <signal.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

static uint64_t expirations(int fd)
{
	uint64_t n;
	if (read(fd, &n, sizeof n) != sizeof n)
		die("read timerfd");
	return n;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	int periodic = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	int idle = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec it = { .it_value = { 0, 300000000 }, .it_interval = { 0, 100000000 } };
	if (periodic < 0 || idle < 0 || timerfd_settime(periodic, 0, &it, NULL) != 0)
		die("timerfd");
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	int sfd = signalfd(-1, &usr1, SFD_CLOEXEC);
	if (sfd < 0 || sigprocmask(SIG_BLOCK, &usr1, NULL) != 0)
		die("signalfd");
	printf("armed\n");
	sleep_ms(200);
	struct itimerspec left;
	if (timerfd_gettime(periodic, &left) != 0)
		die("timerfd_gettime");
	printf("left %ld ms, every %ld ms\n", left.it_value.tv_nsec / 1000000, left.it_interval.tv_nsec / 1000000);
	printf("first read: %llu\n", (unsigned long long)expirations(periodic));
	sleep_ms(250);
	printf("second read: %llu\n", (unsigned long long)expirations(periodic));
	it = (struct itimerspec){ .it_value = { 0, 50000000 } };
	if (timerfd_settime(idle, 0, &it, NULL) != 0)
		die("timerfd_settime");
	printf("idle one, armed after: %llu\n", (unsigned long long)expirations(idle));
	if (kill(getpid(), SIGUSR1) != 0)
		die("kill");
	struct signalfd_siginfo si;
	if (read(sfd, &si, sizeof si) != sizeof si)
		die("read signalfd");
	printf("signalfd: signal %u from %s\n", si.ssi_signo, si.ssi_pid == (uint32_t)getpid() ? "itself" : "another");
	printf("ok\n");
	return 0;
}
