/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cli_error(const struct tally_error *err)
{
    char buf[2048];
    fprintf(stderr, "tally: %s\n", tally_error_format(err, buf, sizeof(buf)));
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
