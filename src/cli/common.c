/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cli.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../io/outfile.h"

void cli_error(const struct tally_error *err)
{
    char buf[2048];
    cli_progress_stop();
    tally_error_format(err, buf, sizeof(buf));
    /* a message may quote bytes of a binary input: no control character reaches the terminal */
    for (char *c = buf; *c; c++)
        if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f) *c = '?';
    fprintf(stderr, "tally: %s\n", buf);
}

void cli_errorf(const char *fmt, ...)
{
    va_list ap;
    cli_progress_stop();
    va_start(ap, fmt);
    fputs("tally: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_warnings(struct profile *p)
{
    if (p->warnings.n) cli_progress_stop();
    for (size_t i = 0; i < p->warnings.n; i++)
        fprintf(stderr, "tally: warning: %s\n", p->warnings.items[i]);
    strlist_release(&p->warnings);
}

const char *cli_optval(int argc, char **argv, int *i, const char *name, int *missing)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

const char *cli_shortval(int argc, char **argv, int *i, const char *name, int *missing)
{
    const char *v = cli_optval(argc, argv, i, name, missing);
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (!v && !*missing && strncmp(a, name, n) == 0 && a[n]) v = a + n;
    return v;
}

const char *cli_output_arg(int argc, char **argv, int *i, int *missing)
{
    const char *v = cli_optval(argc, argv, i, "--output", missing);
    if (!v && !*missing) v = cli_shortval(argc, argv, i, "-o", missing);
    return v;
}

enum cli_arg cli_common_arg(const char *a, int *only_files, const char **files, int *nfiles)
{
    if (*only_files || a[0] != '-' || strcmp(a, "-") == 0) {
        files[(*nfiles)++] = a;
        return CLI_ARG_TAKEN;
    }
    if (strcmp(a, "--") == 0) {
        *only_files = 1;
        return CLI_ARG_TAKEN;
    }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) return CLI_ARG_HELP;
    return CLI_ARG_OTHER;
}

int cli_parse_args(int argc, char **argv, struct cli_args *a, cli_opt_fn own, void *ctx)
{
    int only_files = 0;
    a->files = xcalloc((size_t)argc + 1, sizeof(*a->files));
    a->nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        enum cli_arg kind = cli_common_arg(arg, &only_files, a->files, &a->nfiles);
        if (a->max_files && a->nfiles > a->max_files) {
            cli_errorf("%s: too many files ('%s'); give at most %d", a->cmd, arg, a->max_files);
            return 2;
        }
        if (kind == CLI_ARG_TAKEN) continue;
        if (kind == CLI_ARG_HELP) {
            a->usage(stdout);
            return 1;
        }
        int missing = 0;
        const char *v = cli_output_arg(argc, argv, &i, &missing);
        if (v) {
            a->output = v;
            continue;
        }
        enum cli_opt r = CLI_OPT_UNKNOWN;
        if (!missing && own) r = own(ctx, argc, argv, &i, &missing);
        if (r == CLI_OPT_TAKEN) continue;
        if (r == CLI_OPT_BAD) return 2;
        if (missing)
            cli_errorf("%s: option '%s' needs a value", a->cmd, arg);
        else
            cli_unknown_option(a->cmd, arg, a->usage);
        return 2;
    }
    struct tally_error err;
    if (!a->output_may_be_input && cli_check_output(a->output, a->files, a->nfiles, &err)) {
        cli_error(&err);
        return 2;
    }
    a->files = cli_thread_sets(a->files, &a->nfiles);
    return 0;
}

int cli_check_output(const char *output, const char *const *files, int nfiles,
                     struct tally_error *err)
{
    if (!output || strcmp(output, "-") == 0) return 0;
    struct stat so;
    int exists = stat(output, &so) == 0;
    for (int i = 0; i < nfiles; i++) {
        if (strcmp(files[i], "-") == 0) continue;
        struct stat si;
        int same =
            exists ? stat(files[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino
                   : strcmp(files[i], output) == 0;
        if (same)
            return tally_error_set(err, output, 0,
                                   "the output would overwrite the input %s: give another "
                                   "output file",
                                   files[i]);
    }
    return 0;
}

int cli_quiet;

int cli_open_input(struct input *in, const char *path, struct tally_error *err)
{
    if (input_open(in, path, err)) return -1;
    input_set_max_line(in, cli_max_line);
    return 0;
}

void cli_note(const char *fmt, ...)
{
    if (cli_quiet) return;
    cli_progress_stop();
    va_list ap;
    va_start(ap, fmt);
    fputs("tally: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Levenshtein distance of a and b, with adjacent swaps counting one. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > 64 || nb > 64) return (size_t)-1;
    size_t d[65][65];
    for (size_t i = 0; i <= na; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= na; i++)
        for (size_t j = 1; j <= nb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[na][nb];
}

const char *cli_nearest(const char *word, const char *const *cands, size_t n)
{
    size_t wl = strlen(word);
    size_t limit = wl <= 4 ? 1 : wl <= 12 ? 2 : 3;
    const char *best = NULL;
    size_t bestd = (size_t)-1;
    for (size_t k = 0; k < n; k++) {
        size_t d = edit_distance(word, cands[k]);
        /* a word that starts a candidate is a near miss too ("--incl") */
        if (d > limit && wl >= 3 && strncmp(cands[k], word, wl) == 0) d = limit;
        if (d <= limit && d < bestd) {
            best = cands[k];
            bestd = d;
        }
    }
    return best;
}

/* Appends to *list the options ("--name", "-x") named in TEXT, once each. */
static void options_in(const char *text, struct strlist *list)
{
    for (const char *s = text; *s; s++) {
        if (*s != '-' || (s > text && (isalnum((unsigned char)s[-1]) || s[-1] == '-'))) continue;
        const char *e = s + 1;
        if (*e == '-') e++;
        if (!isalpha((unsigned char)*e)) continue;
        while (isalnum((unsigned char)*e) || *e == '-')
            e++;
        if (e[-1] == '-') continue;
        /* a short option is one letter ("-I", not "-IDIR") */
        if (s[1] != '-' && e - s > 2) continue;
        char *name = xmalloc((size_t)(e - s) + 1);
        memcpy(name, s, (size_t)(e - s));
        name[e - s] = '\0';
        int seen = 0;
        for (size_t k = 0; k < list->n && !seen; k++)
            seen = strcmp(list->items[k], name) == 0;
        if (!seen) strlist_push(list, name);
        free(name);
        s = e - 1;
    }
}

char *cli_find_program(const char *prog)
{
    if (strchr(prog, '/')) return xstrdup(prog);
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char *cand = n ? xasprintf("%.*s/%s", (int)n, path, prog) : xasprintf("./%s", prog);
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
            if (cand[0] != '/') {
                char *abs = realpath(cand, NULL);
                if (abs) {
                    free(cand);
                    cand = abs;
                }
            }
            return cand;
        }
        free(cand);
        path += n;
        if (*path == ':') path++;
    }
    return NULL;
}

const char cli_formula_help[] =
    "Cost formulas: --event='NAME=FORMULA' defines the event NAME from sums and\n"
    "products of events and whole numbers, e.g. 'Cyc=Ir+10*I1mr+100*ILmr'; NAME\n"
    "may then be named wherever an event is. Built in (KCachegrind's): CEst (also\n"
    "Cyc) = Ir + 10 Bm + 10 L1m + 20 Ge + 100 L2m + 100 LLm, L1m = I1mr + D1mr +\n"
    "D1mw, L2m = I2mr + D2mr + D2mw, LLm = ILmr + DLmr + DLmw, Bm = Bim + Bcm;\n"
    "an event they name that the profile lacks counts 0.\n";

int cli_define_events(struct profile *p, const char *const *defs, size_t n, struct tally_error *err)
{
    for (size_t k = 0; k < p->nparts; k++)
        for (size_t i = 0; i < n; i++)
            if (eventset_add_definition(&p->parts[k]->events, defs[i], err)) {
                snprintf(err->file, sizeof err->file, "%s", p->path ? p->path : "");
                err->line = 0;
                return -1;
            }
    return 0;
}

int cli_event_title(int argc, char **argv, int *i, int *missing, const char **event,
                    const char **title)
{
    const char *v;
    if ((v = cli_optval(argc, argv, i, "--event", missing))) {
        *event = v;
        return 1;
    }
    if (!*missing && (v = cli_optval(argc, argv, i, "--title", missing))) {
        *title = v;
        return 1;
    }
    return 0;
}

int cli_write_output(const char *path, int (*write)(FILE *fp, void *ctx, struct tally_error *err),
                     void *ctx, struct tally_error *err)
{
    struct outfile of;
    if (outfile_open(&of, path, err)) return -1;
    if (write(of.fp, ctx, err)) {
        outfile_abort(&of);
        return -1;
    }
    return outfile_commit(&of, err);
}

int cli_bad_usage(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "tally: %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\ntry 'tally %s --help'\n", cmd);
    return 2;
}

void cli_unknown_option(const char *cmd, const char *arg, void (*usage)(FILE *fp))
{
    struct strlist opts = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *fp = usage ? open_memstream(&text, &len) : NULL;
    if (fp) {
        usage(fp);
        fclose(fp);
        options_in(text, &opts);
    }
    free(text);
    /* the option's name without its value */
    size_t n = strcspn(arg, "=");
    char *name = xmalloc(n + 1);
    memcpy(name, arg, n);
    name[n] = '\0';
    const char *near = cli_nearest(name, (const char *const *)opts.items, opts.n);
    if (near)
        cli_errorf("%s: unknown option '%s'; did you mean '%s'? See 'tally %s --help'", cmd, arg,
                   near, cmd);
    else
        cli_errorf("%s: unknown option '%s'; see 'tally %s --help'", cmd, arg, cmd);
    free(name);
    strlist_release(&opts);
}

const char *cli_newest_profile(const char *cmd)
{
    static const char *const prefixes[] = {"tally.out.", "callgrind.out.", "cachegrind.out."};
    static char best[NAME_MAX + 1];
    DIR *d = opendir(".");
    if (!d) return NULL;
    struct timespec bt = {0, 0};
    best[0] = '\0';
    struct dirent *de;
    while ((de = readdir(d))) {
        int match = 0;
        for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0] && !match; k++)
            match = strncmp(de->d_name, prefixes[k], strlen(prefixes[k])) == 0 &&
                    de->d_name[strlen(prefixes[k])] != '\0';
        struct stat st;
        if (!match || stat(de->d_name, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        struct timespec t = st.st_mtim;
        /* the newest; between files of the same time, the last name */
        if (!best[0] || t.tv_sec > bt.tv_sec || (t.tv_sec == bt.tv_sec && t.tv_nsec > bt.tv_nsec) ||
            (t.tv_sec == bt.tv_sec && t.tv_nsec == bt.tv_nsec && strcmp(de->d_name, best) > 0)) {
            snprintf(best, sizeof best, "%s", de->d_name);
            bt = t;
        }
    }
    closedir(d);
    if (!best[0]) {
        cli_errorf("%s: no profile given, and no tally.out.*, callgrind.out.* or "
                   "cachegrind.out.* file in the current directory; see 'tally %s --help'",
                   cmd, cmd);
        return NULL;
    }
    cli_note("%s: no profile given; reading %s, the newest profile here", cmd, best);
    return best;
}
