/* System V shared memory: a segment made, attached, shared with a forked
 * child, detached and removed, with the counts and times IPC_STAT reports
 * (each time read against the clock: the machine's clock, under dsim); and
 * the errors of shmget, shmat, shmdt and shmctl. One line per case. */
#define _GNU_SOURCE
#include "ipccheck.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A time from IPC_STAT against time(): "now" (within a second), "never"
 * (0), or "other". */
static struct shmid_ds stat_of(int id)
{
    struct shmid_ds ds;
    memset(&ds, 0, sizeof ds);
    if (shmctl(id, IPC_STAT, &ds) != 0) printf("IPC_STAT failed: %s\n", strerrorname_np(errno));
    return ds;
}

int main(void)
{
    int id = shmget(IPC_PRIVATE, 10000, IPC_CREAT | 0600);
    show("shmget", id >= 0 ? 0 : -1);
    struct shmid_ds ds = stat_of(id);
    printf("made: size %zu attached %lu atime %s dtime %s ctime %s mode %o\n", ds.shm_segsz, ds.shm_nattch,
           when(ds.shm_atime), when(ds.shm_dtime), when(ds.shm_ctime), ds.shm_perm.mode & 0777);
    printf("  creator is me %d\n", ds.shm_cpid == getpid());
    sleep(2);
    char *p = shmat(id, NULL, 0);
    show("shmat", p == (void *)-1 ? -1 : 0);
    strcpy(p, "parent");
    ds = stat_of(id);
    printf("attached: attached %lu atime %s ctime %s last pid is me %d\n", ds.shm_nattch, when(ds.shm_atime),
           ds.shm_atime - ds.shm_ctime >= 2 ? "2 s before" : "other", ds.shm_lpid == getpid());
    pid_t child = fork();
    if (child == 0) {
        struct shmid_ds c = stat_of(id);
        printf("child: attached %lu\n", c.shm_nattch);
        fflush(stdout);
        strcpy(p, "child was here");
        shmdt(p);
        _exit(0);
    }
    int st;
    waitpid(child, &st, 0);
    ds = stat_of(id);
    printf("after the child: %s, attached %lu dtime %s\n", p, ds.shm_nattch, when(ds.shm_dtime));
    sleep(2);
    show("shmdt", shmdt(p));
    ds = stat_of(id);
    printf("detached: attached %lu dtime %s atime %s\n", ds.shm_nattch, when(ds.shm_dtime),
           ds.shm_dtime - ds.shm_atime >= 2 ? "2 s before" : "other");
    show("shmdt again", shmdt(p));
    sleep(2);
    ds.shm_perm.mode = 0640;
    show("IPC_SET", shmctl(id, IPC_SET, &ds));
    ds = stat_of(id);
    printf("set: mode %o ctime %s\n", ds.shm_perm.mode & 0777, when(ds.shm_ctime));

    /* Attached twice, removed while attached: it lives on until detached. */
    char *a = shmat(id, NULL, 0), *b = shmat(id, NULL, SHM_RDONLY);
    show("two attachments", a != (void *)-1 && b != (void *)-1 ? 0 : -1);
    strcpy(a, "shared");
    printf("  seen through the other: %s\n", b);
    show("IPC_RMID while attached", shmctl(id, IPC_RMID, NULL));
    ds = stat_of(id);
    printf("  still there: attached %lu, marked %d\n", ds.shm_nattch, !!(ds.shm_perm.mode & SHM_DEST));
    shmdt(a);
    shmdt(b);
    show("IPC_STAT once gone", shmctl(id, IPC_STAT, &ds));

    show("shmget 0 bytes", shmget(IPC_PRIVATE, 0, IPC_CREAT | 0600));
    show("shmget of a missing key", shmget(0x7a11, 100, 0600));
    int k = shmget(0x7a12, 100, IPC_CREAT | IPC_EXCL | 0600);
    show("shmget IPC_EXCL", k >= 0 ? 0 : -1);
    show("shmget IPC_EXCL again", shmget(0x7a12, 100, IPC_CREAT | IPC_EXCL | 0600));
    show("shmget the key, bigger", shmget(0x7a12, 200, 0600));
    show("shmget the key, same size", shmget(0x7a12, 100, 0600) == k ? 0 : -1);
    shmctl(k, IPC_RMID, NULL);
    show("shmat a bad id", (long)shmat(123456, NULL, 0));
    show("shmdt an address never attached", shmdt(&k));
    show("shmctl bad command", shmctl(id, 9999, &ds));
    show("shmctl IPC_STAT bad buffer", shmctl(shmget(IPC_PRIVATE, 10, 0600), IPC_STAT, (void *)8));
    return 0;
}
