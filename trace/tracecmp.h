/* Where two runs of one seed parted: two traces written with their notes
 * (results of calls, reads from outside the simulation) compared event by
 * event, and the machines' outputs byte by byte. Pure: knows nothing of
 * runs or ptrace (dsim verify and the sweep's --verify-sample use it). */
#ifndef DSIM_TRACECMP_H
#define DSIM_TRACECMP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A read from outside the simulation, noted in a trace as
 *   "  | outside: MACHINE TID "PATH" DESCRIPTION"
 * (PATH C-escaped), after the event of the open that made it. */
struct outside_read {
    char machine[64];
    int tid;
    char *path;             /* malloc'd */
    char *desc;             /* malloc'd: "host file, 2 bytes, mtime ...", "a /proc file ..." */
    uint64_t event;         /* the index of the event it follows */
};

#define OUTSIDE_NOTE "outside: "
/* The note's text (without "  | ") in buf; returns buf (cut if too long). */
char *outside_note_format(char *buf, size_t len, const char *machine, int tid, const char *path, const char *desc);
/* Parses a note's text; 0, or -1 if it is not an outside-read note. */
int outside_note_parse(const char *text, struct outside_read *r);
void outside_read_free(struct outside_read *r);

#define TC_CONTEXT 3
struct tc_side {
    char *line;             /* the first event that differs; NULL if its trace ended first */
    char *result;           /* that event's result note ("= 3"), or NULL */
    struct outside_read *reads;     /* reads from outside before it (before the end if not parted) */
    size_t nreads;
    uint64_t events;        /* events read (all of them if not parted) */
};

struct tc_diff {
    bool parted;            /* some event differs (or one trace is longer) */
    uint64_t index;         /* the first such event's index: all before it are the same */
    struct tc_side side[2];
    char *context[TC_CONTEXT];      /* the last events before it, oldest first, clock reads left out */
    size_t ncontext;
    /* The first common event (before index) whose result note differs: the
     * kernel told the two runs different things there (notes are not
     * hashed, so this alone does not make the hashes differ). */
    bool result_differs;
    uint64_t result_index;
    char *result_event, *result_note[2];
};

/* Compares two traces (plain text, read from the start); 0, or -1 if one
 * cannot be read. */
int tracecmp(FILE *a, FILE *b, struct tc_diff *d);
void tracecmp_free(struct tc_diff *d);

/* The reads of side 0 that have no read of the same event and path in side
 * 1, or one described otherwise (a file that changed between the runs):
 * their indices into d->side[0].reads go to idx0 and the match's (or
 * SIZE_MAX) to idx1, at most max. Returns how many there are in all. */
size_t tracecmp_changed_reads(const struct tc_diff *d, size_t *idx0, size_t *idx1, size_t max);

/* Where two byte strings first differ, or -1 if they are the same. */
long bytes_first_difference(const char *a, size_t na, const char *b, size_t nb);
/* The line of buf holding offset off (or the end), C-escaped and cut to
 * about max characters, in out. */
void bytes_line_at(const char *buf, size_t n, size_t off, char *out, size_t len);
#endif
