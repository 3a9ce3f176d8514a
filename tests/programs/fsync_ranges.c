/* fsync_ranges: what fsync makes durable when a file is changed piece by
 * piece, which dsim copies by the ranges written since the last fsync.
 *
 *   fsync_ranges write PATH  makes a file of 64 blocks of 4 KiB and fsyncs
 *       it; then changes it with appends through an O_APPEND fd and a
 *       truncation (each synced: the whole file), then with pwrite,
 *       pwritev and a write at the file position, two changes per
 *       fdatasync or fsync (so copies by range are the last word); then
 *       overwrites block 0 without a sync, prints "written" and waits
 *       (for a crash).
 *   fsync_ranges check PATH  (after the crash) reads the file back: every
 *       block must be what was synced, but block 0, which may also be the
 *       unsynced write, or torn between the two. Prints "ok" or what
 *       differs. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define BLOCK 4096
#define NBLOCKS 64

static char image[(NBLOCKS + 2) * BLOCK];
static size_t image_size;

static void fill(char *p, int c) { memset(p, c, BLOCK); }

static void die(const char *what) { perror(what); exit(1); }

/* The synced history, applied to the file (fd >= 0) and to image. */
static void history(int fd, const char *path)
{
    char b[BLOCK], b2[BLOCK];
    for (int i = 0; i < NBLOCKS; i++) fill(image + i * BLOCK, 'A');
    image_size = NBLOCKS * BLOCK;
    if (fd >= 0 && (write(fd, image, image_size) != (ssize_t)image_size || fsync(fd))) die("first write");
    fill(b, 'E');
    memcpy(image + image_size, b, BLOCK);
    memcpy(image + image_size + BLOCK, b, BLOCK);
    image_size += 2 * BLOCK;
    if (fd >= 0) {
        int ap = open(path, O_WRONLY | O_APPEND);
        if (ap < 0 || write(ap, b, BLOCK) != BLOCK || write(ap, b, BLOCK) != BLOCK || fsync(ap)) die("append");
        close(ap);
    }
    image_size -= 3 * BLOCK;
    if (fd >= 0 && (ftruncate(fd, (off_t)image_size) || fsync(fd))) die("truncate");
    for (int i = 1; i <= 20; i++) {
        int k = i * 7 % (NBLOCKS - 1), k2 = k + 1;
        fill(b, 'a' + i % 26);
        memcpy(image + k * BLOCK, b, BLOCK);
        if (i % 3 == 0 && k2 < NBLOCKS - 1) {
            fill(b2, 'a' + (i + 1) % 26);
            memcpy(image + k2 * BLOCK, b2, BLOCK);
            struct iovec v[2] = { { b, BLOCK }, { b2, BLOCK } };
            if (fd >= 0 && pwritev(fd, v, 2, (off_t)k * BLOCK) != 2 * BLOCK) die("pwritev");
        } else if (fd >= 0 && pwrite(fd, b, BLOCK, (off_t)k * BLOCK) != BLOCK) {
            die("pwrite");
        }
        /* two changes per sync: a sync copies several ranges at once */
        if (fd >= 0 && i % 2 == 0 && fdatasync(fd)) die("fdatasync");
    }
    fill(b, 'P');
    memcpy(image + 5 * BLOCK, b, BLOCK);
    if (fd >= 0 && (lseek(fd, 5 * BLOCK, SEEK_SET) < 0 || write(fd, b, BLOCK) != BLOCK || fsync(fd))) die("write");
}

int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    const char *path = argv[2];
    if (!strcmp(argv[1], "write")) {
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) die("open");
        history(fd, path);
        char z[BLOCK];
        fill(z, 'Z');
        if (pwrite(fd, z, BLOCK, 0) != BLOCK) die("last pwrite");
        printf("written\n");
        fflush(stdout);
        for (;;) pause();
    }
    history(-1, path);
    static char got[sizeof image + BLOCK];
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open");
    ssize_t n = read(fd, got, sizeof got);
    if (n != (ssize_t)image_size) {
        printf("size %zd, expected %zu\n", n, image_size);
        return 1;
    }
    for (size_t i = 0; i < image_size; i++) {
        if (got[i] == image[i] || (i < BLOCK && got[i] == 'Z')) continue;
        printf("byte %zu (block %zu): %c, expected %c\n", i, i / BLOCK, got[i], image[i]);
        return 1;
    }
    printf("ok\n");
    return 0;
}
