/* The network faults' machine names, once every machine is known (netfaults.h). */
#include "base/netfaults.h"
#include "base/netconf.h"
#include "base/values.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parse_percent_range(const char *s, uint32_t *lo, uint32_t *hi)
{
    const char *dots = strstr(s, "..");
    if (!dots)
        return parse_percent_ppm(s, lo) < 0 ? -1 : (*hi = *lo, 0);
    char first[64];
    if ((size_t)(dots - s) >= sizeof first)
        return -1;
    memcpy(first, s, (size_t)(dots - s));
    first[dots - s] = '\0';
    return parse_percent_ppm(first, lo) < 0 || parse_percent_ppm(dots + 2, hi) < 0 || *lo > *hi ? -1 : 0;
}

static int index_of(char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return (int)i;
    return -1;
}

/* `machine = X` for a partition: X | every other machine. */
static int isolate(char *const *names, size_t n, struct fault_conf *f, char *msg, size_t msglen)
{
    if (n < 2)
        return line_error(msg, msglen, f->line, "fault \"%s\": no other machine to cut \"%s\" off from", f->name,
                   f->machine);
    f->machines = calloc(n, sizeof *f->machines);
    if (!f->machines)
        return line_error(msg, msglen, f->line, "out of memory");
    f->machines[f->nmachines++] = f->machine;
    f->nleft = 1;
    f->machine = NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], f->machines[0]) && !(f->machines[f->nmachines++] = strdup(names[i])))
            return line_error(msg, msglen, f->line, "out of memory");
    return 0;
}

int netfaults_resolve(struct fault_conf *faults, size_t nfaults, const struct chaos_conf *ch, char *const *names,
                      size_t nnames, char *msg, size_t msglen)
{
    for (size_t i = 0; i < nfaults; i++) {
        struct fault_conf *f = &faults[i];
        if (!FAULT_IS_NET(f->kind))
            continue;
        if (f->machine && index_of(names, nnames, f->machine) < 0)
            return line_error(msg, msglen, f->line, "fault \"%s\" names no machine of this file: \"%s\"", f->name,
                       f->machine);
        if (f->machine && isolate(names, nnames, f, msg, msglen))
            return f->line;
        for (size_t k = 0; k < f->nmachines; k++) {
            int m = index_of(names, nnames, f->machines[k]);
            if (m < 0)
                return line_error(msg, msglen, f->line, "fault \"%s\" names no machine of this file: \"%s\"", f->name,
                           f->machines[k]);
            if (m >= NET_MAX_MACHINES)
                return line_error(msg, msglen, f->line, "fault \"%s\" can name only the first %d machines, not \"%s\"",
                           f->name, NET_MAX_MACHINES, f->machines[k]);
        }
    }
    if (!ch || !(ch->partition_every || ch->loss_every || ch->dup_every))
        return 0;
    size_t n = ch->nmachines ? ch->nmachines : nnames;
    if (ch->partition_every && n < 2)
        return line_error(msg, msglen, ch->line, "[chaos] partition needs two machines or more to split");
    for (size_t k = 0; k < n; k++) {
        if ((ch->nmachines ? index_of(names, nnames, ch->machines[k]) : (int)k) >= NET_MAX_MACHINES)
            return line_error(msg, msglen, ch->line, "[chaos] network faults can hit only the first %d machines",
                       NET_MAX_MACHINES);
        for (size_t j = 0; ch->nmachines && j < k; j++)      /* a partition's sides name each once */
            if (!strcmp(ch->machines[j], ch->machines[k]))
                return line_error(msg, msglen, ch->line, "[chaos] names machine \"%s\" twice", ch->machines[k]);
    }
    return 0;
}
