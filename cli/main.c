/* dsim: deterministic simulation testing for real programs. The command
 * line: the usage text, the table of commands, signals. Each command is a
 * cmd_NAME function of its own file in cli/ (run.c, tools.c, crashstates.c,
 * doctor.c, listing.c). */
#include "cli/cli.h"
#include "cli/crashstates.h"
#include "supervisor/hostcaps.h"
#include "supervisor/machine.h"
#include "supervisor/run.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

const char usage_text[] =
    "usage: dsim run CONF --seeds SPEC [-j N] [--keep-going] [--results FILE.jsonl] [--junit FILE.xml]\n"
    "                [--checkpoint FILE] [--shard I/N (1<=I<=N)] [--output DIR] [--plan FILE] [--tsc MODE]\n"
    "                [--cpuid MODE] [--verify-sample P%|K] [--warm snapshot|cold] [-D NAME=VALUE]...\n"
    "       dsim run CONF --seeds SEED --trace FILE\n"
    "       dsim verify CONF --seed N [--runs K] [--trace FILE] [--plan FILE] [--tsc MODE] [--cpuid MODE]\n"
    "                   [-D NAME=VALUE]...\n"
    "       dsim replay CONF SEED [--trace FILE [--stacks MACHINE,...|all]] [--plan FILE] [--plan-out FILE]\n"
    "                   [--output DIR] [--crash-state C:D.D...] [--tsc MODE] [--cpuid MODE] [-D NAME=VALUE]...\n"
    "       dsim diff CONF SEED_A SEED_B [--plan FILE] [--tsc MODE] [--cpuid MODE] [-D NAME=VALUE]...\n"
    "       dsim shrink CONF SEED [--plan FILE] [--plan-out FILE] [--tsc MODE] [--cpuid MODE] [-D NAME=VALUE]...\n"
    "       dsim crash-states CONF SEED [--crash N | --at TIME --machine NAME [--plan-out FILE]] [--max RUNS]\n"
    "                         [--plan FILE] [--tsc MODE] [--cpuid MODE] [-D NAME=VALUE]...\n"
    "       dsim trace FILE [--machine M] [--thread T] [--syscall NAME] [--from TIME] [--to TIME]\n"
    "       dsim merge [--keep-going] [--results FILE.jsonl] [--junit FILE.xml] RESULTS.jsonl...\n"
    "       dsim exec [--seed N] [--duration D] [--env NAME=VALUE]... [--trace FILE] [--tsc MODE] [--cpuid MODE]\n"
    "                 [--clock-reads stop|page] -- PROGRAM [ARG]...\n"
    "       dsim doctor\n"
    "       dsim syscalls\n"
    "       dsim --help | --version\n"
    "\n"
    "SPEC is a seed (7), a range (1-100), random:N (N fresh random seeds), or a\n"
    "comma-separated list of them (1-10,42,random:100).\n"
    "--shard I/N runs shard I of N, counted from 1 (--shard 1/3, 2/3, 3/3).\n"
    "-D NAME=VALUE (or --set NAME=VALUE) replaces ${NAME} in CONF.\n"
    "Exit status: 0 every seed passed, 1 a seed failed, 2 usage or config error,\n"
    "3 a sampled seed did not replay (--verify-sample).\n"
    "See dsim(1) and cluster.conf(5).\n";

static void on_signal(int sig)
{
    dsim_interrupted = sig;
    machines_kill_all_async();
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* ---- reporting ---- */

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    host_cpus_note();
    if (argc < 2) { fputs(usage_text, stderr); return EXIT_USAGE; }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) { fputs(usage_text, stdout); return 0; }
    if (!strcmp(cmd, "--version")) { printf("dsim %s\n", PACKAGE_VERSION); return 0; }
    set_current_command(cmd);
    if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) &&
        strstr(usage_text, cmd) && strcmp(cmd, "--version")) {
        command_help(cmd);
        return 0;
    }
    install_signals();
    /* poll and select hold a copy of every fd they watch. */
    struct rlimit nofile;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
        nofile.rlim_cur = nofile.rlim_max;
        setrlimit(RLIMIT_NOFILE, &nofile);
    }
    static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
        { "run", cmd_run }, { "verify", cmd_verify }, { "replay", cmd_replay }, { "exec", cmd_exec },
        { "merge", cmd_merge }, { "diff", cmd_diff }, { "trace", cmd_trace }, { "shrink", cmd_shrink },
        { "crash-states", cmd_crash_states }, { "doctor", cmd_doctor },
        { "syscalls", cmd_syscalls },
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
        if (!strcmp(cmd, cmds[i].name)) {
            int status = cmds[i].fn(argc - 1, argv + 1);
            run_cleanup(0);
            return status;
        }
    return usage_error("unknown command %s", cmd);
}
