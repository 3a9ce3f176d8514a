/* A process's memory as smaps and smaps_rollup tell it, beside status's
 * VmRSS and maps: the rollup's totals, the sums over smaps' mappings,
 * whether smaps' mapping lines are maps' lines, and the fields of the
 * first mapping; and its oom_score, with oom_score_adj 0 and 500. Under dsim every number is the model's (one per seed,
 * the same on every host); natively the host's page cache and other
 * processes' sharing move them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fields[] = { "Rss:", "Pss:", "Private_Dirty:", "Private_Clean:", "Anonymous:",
                                      "Shared_Clean:" };
#define NF (sizeof fields / sizeof *fields)

static int is_head(const char *line)
{
    unsigned long lo, hi;
    return sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, ' ');
}

int main(void)
{
    char line[4400], *maps[4096];
    unsigned long long rollup[NF] = { 0 }, sum[NF] = { 0 }, vmrss = 0;
    size_t nmaps = 0, heads = 0, matched = 0, pkeys = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && nmaps < 4096 && fgets(line, sizeof line, f)) maps[nmaps++] = strdup(line);
    if (f) fclose(f);
    f = fopen("/proc/self/smaps", "r");
    int first = 1, in_first = 0;
    printf("fields:");
    while (f && fgets(line, sizeof line, f)) {
        if (is_head(line)) {
            if (heads < nmaps && !strcmp(line, maps[heads])) matched++;
            heads++;
            in_first = first;
            first = 0;
            continue;
        }
        if (!strncmp(line, "ProtectionKey:", 14)) pkeys++;
        if (in_first) {
            char name[64];
            if (sscanf(line, "%63s", name) == 1) printf(" %s", name);
        }
        for (size_t i = 0; i < NF; i++)
            if (!strncmp(line, fields[i], strlen(fields[i]))) sum[i] += strtoull(line + strlen(fields[i]), NULL, 10);
    }
    printf("\n");
    if (f) fclose(f);
    f = fopen("/proc/self/smaps_rollup", "r");
    while (f && fgets(line, sizeof line, f))
        for (size_t i = 0; i < NF; i++)
            if (!strncmp(line, fields[i], strlen(fields[i]))) rollup[i] = strtoull(line + strlen(fields[i]), NULL, 10);
    if (f) fclose(f);
    f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) vmrss = strtoull(line + 6, NULL, 10);
    if (f) fclose(f);
    printf("mappings %zu, smaps lines as maps %s, protection keys %zu\n", heads, matched == nmaps && heads == nmaps ? "yes" : "no",
           pkeys);
    for (size_t i = 0; i < NF; i++) printf("%s rollup %llu smaps %llu\n", fields[i], rollup[i], sum[i]);
    printf("VmRSS %llu\n", vmrss);
    for (int adj = 0; adj <= 500; adj += 500) {
        f = fopen("/proc/self/oom_score_adj", "w");
        if (f) fprintf(f, "%d\n", adj), fclose(f);
        f = fopen("/proc/self/oom_score", "r");
        if (f && fgets(line, sizeof line, f)) printf("oom_score_adj %d oom_score %s", adj, line);
        if (f) fclose(f);
    }
    return 0;
}
