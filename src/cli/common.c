/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void cli_error(const struct tally_error *err)
{
    char buf[2048];
    tally_error_format(err, buf, sizeof(buf));
    /* a message may quote bytes of a binary input: no control character reaches the terminal */
    for (char *c = buf; *c; c++)
        if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f) *c = '?';
    fprintf(stderr, "tally: %s\n", buf);
}

void cli_errorf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tally: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_warnings(struct profile *p)
{
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
            cli_errorf("%s: unknown option '%s'; see 'tally %s --help'", a->cmd, arg, a->cmd);
        return 2;
    }
    struct tally_error err;
    if (!a->output_may_be_input && cli_check_output(a->output, a->files, a->nfiles, &err)) {
        cli_error(&err);
        return 2;
    }
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
