/* cluster.conf: loading and validating a run's configuration.
 *
 * The INI syntax itself (comments, "key = value" splitting, whitespace) is
 * parsed by inih. inih as packaged (Debian, r55) does not pass line numbers to
 * the handler, has a fixed 200-byte line buffer (it would silently split a
 * longer line into several), truncates section names to 49 bytes, treats
 * indented lines as continuations and never tells the handler about a
 * section that has no keys. So inih reads from our own line reader, which
 * hands it exactly one physical line per call and does the rest itself:
 *
 *   - it counts lines, so the handler (always called for the line the reader
 *     last returned) knows its line number;
 *   - it rejects bytes that cannot be in a text file (NUL, control
 *     characters, invalid UTF-8), naming line and column;
 *   - it strips a leading UTF-8 BOM, leading whitespace (so indentation is
 *     allowed and never a continuation) and inline comments (" #..." and
 *     " ;..." -- a '#' or ';' preceded by whitespace);
 *   - it parses "[section]" headers itself and gives inih an empty line in
 *     their place, so names may be of any length and empty sections are seen;
 *   - it splits a "key = value" line too long for inih's buffer itself and
 *     gives inih a short stand-in line;
 *   - it reports a line that is neither a comment, a header nor a
 *     "key = value" pair (inih would report it too, without a message).
 *
 * Every key, its type and where it is stored are config_keys.c's table.
 * Every error is "FILE:LINE: message"; only the first one is reported. */
#include "base/config_parser.h"
#include "base/defines.h"
#include "base/netfaults.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>


#define DEFAULT_DURATION_NS (30 * NS_PER_S)
#define DEFAULT_QUANTUM_NS (10 * NS_PER_US)
#define DEFAULT_CPUS 2
#define DEFAULT_MEMORY_BYTES (4ULL << 30)
#define MAX_FILE_SIZE (1 << 20)

/* ---------------------------------------------------------------- values */

#include "base/values.h"

static struct config *config_new(void)
{
    struct config *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->duration_ns = DEFAULT_DURATION_NS;
    c->quantum_ns = DEFAULT_QUANTUM_NS;
    c->spin_limit_ns = 30ULL * 1000000000ULL;
    c->cpus = DEFAULT_CPUS;
    c->memory_bytes = DEFAULT_MEMORY_BYTES;
    c->epoch_s = DEFAULT_EPOCH_S;
    c->clock_reads = CLOCK_READS_PAGE;
    net_conf_init(&c->net);
    return c;
}

void config_free(struct config *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nmachines; i++) {
        struct machine_conf *m = &c->machines[i];
        free(m->name);
        free(m->command);
        free(m->command_after_restart);
        for (size_t j = 0; j < m->nenv; j++)
            free(m->env[j]);
        free(m->env);
    }
    free(c->machines);
    for (size_t i = 0; i < c->nfaults; i++)
        fault_free_fields(&c->faults[i]);
    free(c->faults);
    chaos_free(c->chaos);
    net_conf_free(&c->net);
    free(c->check_command);
    free(c->warm_machine);
    free(c->warm_text);
    free(c->path);
    free(c->dir);
    free(c);
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- parser */

/* Offset of the first byte of s[0..n) that cannot be in a text line:
 * control characters other than tab (and a CR ending the line), DEL, and
 * anything that is not well-formed UTF-8. -1 when all is well. */
static long bad_byte(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            if ((c < 0x20 && c != '\t' && !(c == '\r' && i + 1 == n)) || c == 0x7f)
                return (long)i;
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            cp = c & 0x07;
        } else {
            return (long)i;
        }
        if (i + len > n)
            return (long)i;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return (long)i;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return (long)i;
        i += len;
    }
    return -1;
}

static char *skip_blanks(char *s)
{
    while (is_blank(*s))
        s++;
    return s;
}

static void rstrip(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && is_blank(s[n - 1]))
        s[--n] = '\0';
}

/* Cuts an inline comment: a '#' that follows whitespace. A ';' does not
 * start one, since commands are shell text ("a ; b"). */
static void cut_comment(char *s)
{
    for (char *q = s + 1; *q; q++) {
        if (*q == '#' && is_blank(q[-1])) {
            *q = '\0';
            break;
        }
    }
    rstrip(s);
}

static struct config *c_of(struct parser *p) { return p->c; }

static void section_header(struct parser *p, char *s)
{
    size_t n = strlen(s);
    int line = p->lineno;
    if (n < 2 || s[n - 1] != ']') {
        parser_fail(p, line, "bad section header \"%s\" (expected \"[name]\")", s);
        return;
    }
    s[n - 1] = '\0';
    char *inner = skip_blanks(s + 1);
    rstrip(inner);
    if (keys_end_section(p) == 0)       /* the section that ends here: errors in file order */
        return;
    p->seen = (struct keyset){ 0 };

    if (strcmp(inner, "simulation") == 0 || strcmp(inner, "check") == 0) {
        bool sim = inner[0] == 's';
        int *first = sim ? &p->simulation_line : &p->check_line;
        if (*first) {
            parser_fail(p, line, "duplicate section [%s]", inner);
            return;
        }
        *first = line;
        p->section = sim ? SEC_SIMULATION : SEC_CHECK;
        return;
    }
    if (strcmp(inner, "defaults") == 0) {
        if (p->defaults_line) { parser_fail(p, line, "duplicate section [defaults]"); return; }
        p->defaults_line = line;
        p->section = SEC_DEFAULTS;
        return;
    }
    if (strcmp(inner, "chaos") == 0) {
        if (c_of(p)->chaos) { parser_fail(p, line, "duplicate section [chaos]"); return; }
        struct chaos_conf *ch = calloc(1, sizeof *ch);
        if (!ch) { parser_fail(p, line, "out of memory"); return; }
        ch->line = line;
        chaos_defaults(ch);
        c_of(p)->chaos = ch;
        p->section = SEC_CHAOS;
        return;
    }
    if (strncmp(inner, "fault", 5) == 0 && (inner[5] == '\0' || is_blank(inner[5]))) {
        char *fname = skip_blanks(inner + 5);
        if (!*fname || !valid_machine_name(fname)) {
            parser_fail(p, line, "fault section needs a name (use [fault NAME])");
            return;
        }
        for (size_t i = 0; i < c_of(p)->nfaults; i++)
            if (!strcmp(c_of(p)->faults[i].name, fname)) {
                parser_fail(p, line, "duplicate fault \"%s\"", fname);
                return;
            }
        GROW_ONE(c_of(p)->faults, c_of(p)->nfaults);
        c_of(p)->faults[c_of(p)->nfaults] = (struct fault_conf){ .name = strdup(fname), .line = line };
        c_of(p)->nfaults++;
        p->section = SEC_FAULT;
        return;
    }
    if (netconf_is_section(inner)) {
        char msg[512];
        int err_line = netconf_begin(&p->net, &c_of(p)->net, inner, line, msg, sizeof msg);
        if (err_line)
            parser_fail(p, err_line, "%s", msg);
        else
            p->section = !strcmp(inner, "network") ? SEC_NETWORK : !strcmp(inner, "partition") ? SEC_PARTITION
                         : SEC_LINK;
        return;
    }
    if (strncmp(inner, "machine", 7) != 0 || (inner[7] != '\0' && !is_blank(inner[7]))) {
        parser_fail(p, line, "unknown section [%s]", inner);
        return;
    }

    char *name = skip_blanks(inner + 7);
    size_t len = strlen(name);
    if (len == 0) {
        parser_fail(p, line, "machine section has no name (use [machine NAME])");
        return;
    }
    if (!valid_machine_name(name)) {
        parser_fail(p, line, "bad machine name \"%s\" (use letters, digits, '_', '.' and '-', "
             "starting with a letter or digit)", name);
        return;
    }
    if (len > MAX_MACHINE_NAME) {
        parser_fail(p, line, "machine name \"%s\" is too long (%zu characters, at most %d)",
             name, len, MAX_MACHINE_NAME);
        return;
    }
    struct config *c = p->c;
    for (size_t i = 0; i < c->nmachines; i++) {
        if (strcmp(c->machines[i].name, name) == 0) {
            parser_fail(p, line, "duplicate machine \"%s\"", name);
            return;
        }
    }
    GROW_ONE(c->machines, c->nmachines);
    struct machine_conf *m = &c->machines[c->nmachines];
    memset(m, 0, sizeof *m);
    m->line = line;
    if (!(m->name = strdup(name))) {
        parser_fail(p, line, "out of memory");
        return;
    }
    c->nmachines++;
    p->section = SEC_MACHINE;
}

/* The ini_reader: hands inih the next physical line, or NULL at the end of
 * the file or after the first error. */
#define SEMICOLON_STANDIN '\x1f'

static char *read_line(char *str, int num, void *stream)
{
    struct parser *p = stream;
    if (p->failed || p->pos >= p->len || num < 2)
        return NULL;

    const char *s = p->buf + p->pos;
    const char *nl = memchr(s, '\n', p->len - p->pos);
    size_t n = nl ? (size_t)(nl - s) : p->len - p->pos;
    p->pos += n + (nl != NULL);
    p->lineno++;
    p->stashed = false;
    str[0] = '\0';

    long bad = bad_byte((const unsigned char *)s, n);
    if (bad >= 0) {
        unsigned char b = (unsigned char)s[bad];
        if (b < 0x80)
            parser_fail(p, p->lineno, "binary data (byte 0x%02x at column %ld)", b, bad + 1);
        else
            parser_fail(p, p->lineno, "invalid UTF-8 (byte 0x%02x at column %ld)", b, bad + 1);
        return NULL;
    }

    memcpy(p->line, s, n);
    p->line[n] = '\0';
    char *t = p->line;
    if (p->lineno == 1 && strncmp(t, "\xef\xbb\xbf", 3) == 0)
        t += 3;
    t = skip_blanks(t);
    if (*t == '\0' || *t == '#' || *t == ';')
        return str;                     /* blank or comment */
    cut_comment(t);
    free(p->expanded);
    char why[512];
    if (!(t = p->expanded = define_expand(t, p->defines, why, sizeof why))) {
        parser_fail(p, p->lineno, "%s", why);
        return NULL;
    }

    if (*t == '[') {
        section_header(p, t);
        return p->failed ? NULL : str;
    }

    char *sep = strpbrk(t, "=:");
    if (!sep) {
        parser_fail(p, p->lineno, "syntax error: \"%s\" is not \"key = value\", \"[section]\" "
             "or a comment", t);
        return NULL;
    }
    size_t tlen = strlen(t);
    if (tlen + 1 <= (size_t)num) {
        /* inih would cut " ;..." as a comment; commands are shell text, so
         * hand it a stand-in byte (control bytes never reach here). */
        for (char *q = t; *q; q++)
            if (*q == ';') *q = SEMICOLON_STANDIN;
        memcpy(str, t, tlen + 1);
        return str;
    }
    /* Too long for inih's buffer: split it here, hand inih a stand-in. */
    *sep = '\0';
    rstrip(t);
    p->stash_name = t;
    p->stash_value = skip_blanks(sep + 1);
    p->stashed = true;
    snprintf(str, (size_t)num, "long=line");
    return str;
}

/* inih's name and value, or the reader's for a line it split; a stand-in
 * byte back to the ';' it stands for (restored: room for the value). */
static const char *real_value(struct parser *p, const char **name, const char *value, char *restored, size_t size)
{
    if (p->stashed) {
        *name = p->stash_name;
        return p->stash_value;
    }
    if (!value)
        return "";
    if (!strchr(value, SEMICOLON_STANDIN))
        return value;
    snprintf(restored, size, "%s", value);
    for (char *q = restored; *q; q++)
        if (*q == SEMICOLON_STANDIN) *q = ';';
    return restored;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    struct parser *p = user;
    int line = p->lineno;
    char restored[4096];
    (void)section;                      /* tracked by the reader */

    if (p->failed)
        return 0;
    value = real_value(p, &name, value, restored, sizeof restored);
    if (*name == '\0')
        return parser_fail(p, line, "missing key name before \"=\"");
    if (p->section == SEC_NONE)
        return parser_fail(p, line, "key \"%s\" outside any section", name);
    return keys_read(p, name, value);
}

/* Reads all of PATH into a NUL-terminated buffer. */
static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        set_err(err, errlen, "%s: cannot open: %s", path, strerror(EISDIR));
        close(fd);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) {
            set_err(err, errlen, "%s: out of memory", path);
            close(fd);
            return NULL;
        }
        if (n == cap) {
            if (cap > MAX_FILE_SIZE) {
                set_err(err, errlen, "%s: too large (more than %d bytes)", path,
                        MAX_FILE_SIZE);
                free(buf);
                close(fd);
                return NULL;
            }
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb)
                free(buf);
            buf = nb;
            continue;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            set_err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > MAX_FILE_SIZE) {
        set_err(err, errlen, "%s: too large (more than %d bytes)", path, MAX_FILE_SIZE);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* realpath(dirname(path)) */
static char *file_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return NULL;
    char *dir = realpath(dirname(copy), NULL);
    free(copy);
    return dir;
}

struct config *config_load(const char *path, char *err, size_t errlen)
{
    return config_load_defined(path, NULL, err, errlen);
}

struct config *config_load_defined(const char *path, struct defines *defines, char *err, size_t errlen)
{
    size_t len;
    char *buf;
    struct parser p = { 0 };

    set_err(err, errlen, "%s", "");
    if (!path) {
        set_err(err, errlen, "no configuration file given");
        return NULL;
    }
    if (!(buf = read_file(path, &len, err, errlen)))
        return NULL;

    p.path = path;
    p.defines = defines;
    p.err = err;
    p.errlen = errlen;
    p.buf = buf;
    p.len = len;
    p.line = malloc(len + 1);
    p.c = config_new();
    if (!p.line || !p.c) {
        set_err(err, errlen, "%s: out of memory", path);
        goto fail;
    }

    int r = ini_parse_stream(read_line, &p, handler, &p);
    if (!p.failed && r > 0)         /* inih saw an error the reader did not */
        parser_fail(&p, r, "syntax error");
    else if (!p.failed && r < 0)
        parser_fail(&p, p.lineno, "out of memory");
    if (p.failed)
        goto fail;

    struct config *c = p.c;
    if (keys_end_section(&p) == 0)
        goto fail;
    if (c->nmachines == 0) {
        parser_fail(&p, 1, "no machines defined");
        goto fail;
    }
    if (keys_inherit(&p) == 0)
        goto fail;
    for (size_t i = 0; i < c->nmachines; i++) {         /* addresses: 10.0.0.N unless given */
        struct machine_conf *m = &c->machines[i];
        unsigned n = (unsigned)i + 1;
        if (!m->address[0]) snprintf(m->address, sizeof m->address, "10.0.%u.%u", (n >> 8) & 255, n & 255);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(c->machines[j].address, m->address)) {
                parser_fail(&p, m->line, "machines \"%s\" and \"%s\" have the same address %s", c->machines[j].name,
                     m->name, m->address);
                goto fail;
            }
    }
    for (size_t i = 0; i < c->nmachines; i++)
        if (c->machines[i].start_line && c->machines[i].start_ns >= c->duration_ns) {
            /* It would never run: the run would pass without it, or time out. */
            parser_fail(&p, c->machines[i].start_line, "machine \"%s\" starts at or after the end of the run "
                 "([simulation] duration)", c->machines[i].name);
            goto fail;
        }
    if (c->warm_start_ns && c->warm_start_ns >= c->duration_ns) {
        parser_fail(&p, c->warm_start_line, "warm_start is at or after the end of the run ([simulation] duration)");
        goto fail;
    }
    if (c->warm_machine) {
        size_t m = 0;
        while (m < c->nmachines && strcmp(c->machines[m].name, c->warm_machine)) m++;
        if (m == c->nmachines) {
            parser_fail(&p, c->warm_start_line, "warm_start names no machine of this file: \"%s\"", c->warm_machine);
            goto fail;
        }
    }
    for (size_t i = 0; c->chaos && i < c->chaos->nmachines; i++) {
        size_t m = 0;
        while (m < c->nmachines && strcmp(c->machines[m].name, c->chaos->machines[i])) m++;
        if (m == c->nmachines) {
            parser_fail(&p, c->chaos->line, "[chaos] names no machine of this file: \"%s\"", c->chaos->machines[i]);
            goto fail;
        }
    }
    for (size_t i = 0; i < c->nfaults; i++) {
        size_t m = 0;
        if (FAULT_IS_NET(c->faults[i].kind)) continue;      /* netfaults_resolve */
        while (m < c->nmachines && strcmp(c->machines[m].name, c->faults[i].machine)) m++;
        if (m == c->nmachines) {
            parser_fail(&p, c->faults[i].machine_line ? c->faults[i].machine_line : c->faults[i].line,
                 "fault \"%s\" names no machine of this file: \"%s\"",
                 c->faults[i].name, c->faults[i].machine);
            goto fail;
        }
    }
    char msg[512], **names = xrealloc(NULL, c->nmachines * sizeof *names);
    for (size_t i = 0; i < c->nmachines; i++)
        names[i] = c->machines[i].name;
    int net_line = netconf_resolve(&p.net, &c->net, names, c->nmachines, msg, sizeof msg);
    if (!net_line) net_line = netfaults_resolve(c->faults, c->nfaults, c->chaos, names, c->nmachines, msg, sizeof msg);
    free(names);
    if (net_line) {
        parser_fail(&p, net_line, "%s", msg);
        goto fail;
    }
    if (!(c->path = strdup(path))) {
        set_err(err, errlen, "%s: out of memory", path);
        goto fail;
    }
    if (!(c->dir = file_dir(path))) {
        set_err(err, errlen, "%s: cannot resolve its directory: %s", path, strerror(errno));
        goto fail;
    }
    c->dir_mounted = strcmp(c->dir, "/") != 0;
    netconf_parser_free(&p.net);
    keys_free(&p);
    free(p.line);
    free(p.expanded);
    free(buf);
    return c;

fail:
    netconf_parser_free(&p.net);
    keys_free(&p);
    config_free(p.c);
    free(p.line);
    free(p.expanded);
    free(buf);
    return NULL;
}

/* -------------------------------------------------------------- dsim exec */

/* argv as one /bin/sh command line: every argument single-quoted, a quote
 * inside one written as '\'' -- so `sh -c` sees exactly argv. */
static char *shell_join(char *const argv[])
{
    size_t size = 1;
    for (size_t i = 0; argv[i]; i++) {
        size += 3;                      /* quotes and separator */
        for (const char *s = argv[i]; *s; s++)
            size += *s == '\'' ? 4 : 1;
    }
    char *out = malloc(size), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; argv[i]; i++) {
        if (i > 0)
            *o++ = ' ';
        *o++ = '\'';
        for (const char *s = argv[i]; *s; s++) {
            if (*s == '\'') {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else {
                *o++ = *s;
            }
        }
        *o++ = '\'';
    }
    *o = '\0';
    return out;
}

struct config *config_for_exec(char *const argv[], char *err, size_t errlen)
{
    set_err(err, errlen, "%s", "");
    if (!argv || !argv[0]) {
        set_err(err, errlen, "no command given");
        return NULL;
    }
    struct config *c = config_new();
    if (!c)
        goto nomem;
    if (!(c->path = strdup("(exec)")))
        goto nomem;
    if (!(c->dir = getcwd(NULL, 0))) {
        set_err(err, errlen, "cannot get the current directory: %s", strerror(errno));
        config_free(c);
        return NULL;
    }
    if (!(c->machines = calloc(1, sizeof *c->machines)))
        goto nomem;
    c->nmachines = 1;
    struct machine_conf *m = &c->machines[0];
    if (!(m->name = strdup("main")) || !(m->command = shell_join(argv)))
        goto nomem;
    snprintf(m->address, sizeof m->address, "10.0.0.1");
    return c;

nomem:
    set_err(err, errlen, "out of memory");
    config_free(c);
    return NULL;
}
