/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate_cg321.c - `tally annotate --layout=3.21`: the options cg_annotate
 * 3.21+ has, its rules for them, and the profiles read one by one (each
 * keeps its own metadata; --diff subtracts the first), then the report of
 * src/report/annotate_cg321.c.
 */
#include "annotate_cg321.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/format.h"
#include "../io/bytebuf.h"
#include "../report/annotate_cg321.h"
#include "cli.h"

/* A number as Python's float() reads it (no hex, no inf or nan); 0 to 100. */
static int parse_threshold(const char *v, double *out)
{
    const char *s = v;
    while (isspace((unsigned char)*s))
        s++;
    for (const char *c = s; *c; c++)
        if (!strchr("0123456789.eE+- \t\n", *c)) return -1;
    char *end;
    double d = strtod(s, &end);
    if (end == s) return -1;
    while (isspace((unsigned char)*end))
        end++;
    if (*end || !isfinite(d) || d < 0 || d > 100) return -1;
    *out = d;
    return 0;
}

static int has_event(const struct part *pt, const char *name)
{
    for (size_t i = 0; i < pt->events.n; i++)
        if (!strcmp(pt->events.names[i], name)) return 1;
    return 0;
}

/* --show and --sort name events of the `events:` line. */
static int check_events(const struct part *pt, const struct annotate_options *o)
{
    const struct strlist *l[2] = {&o->show, &o->sort};
    const char *opt[2] = {"--show", "--sort"};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < l[k]->n; i++)
            if (!has_event(pt, l[k]->items[i])) {
                cli_errorf("annotate: %s event '%s' is not in the 'events:' line", opt[k],
                           l[k]->items[i]);
                return -1;
            }
    return 0;
}

static int not_cachegrind(const char *path)
{
    cli_errorf("%s: not a cachegrind profile: --layout=3.21 is cg_annotate's, which reads "
               "cachegrind files only (leave --layout out for other profiles)",
               path);
    return 1;
}

int annotate_cg321(const struct cga_cli *x)
{
    const struct annotate_options *o = x->o;
    const char *refused = o->inclusive                        ? "--inclusive=yes"
                          : o->tree_caller || o->tree_calling ? "--tree"
                          : o->include_dirs.n                 ? "-I/--include"
                          : o->sort_has_thresholds            ? "--sort=EVENT:PERCENT"
                          : x->source_files                   ? "source files after \"--\""
                          : o->group                          ? "--group"
                          : o->asm_code                       ? "--asm"
                          : x->defines                        ? "--event=NAME=FORMULA"
                                                              : NULL;
    if (refused)
        return cli_bad_usage("annotate", "%s is not part of cg_annotate 3.21+'s layout", refused);
    if (x->diff && x->profiles->n != 2)
        return cli_bad_usage("annotate", "--diff needs exactly two profiles%s", "");
    struct cga_options co = {.show = o->show,
                             .sort = o->sort,
                             .threshold = 0.1,
                             .show_percs = o->show_percs,
                             .annotate = o->auto_annotate,
                             .context = o->context,
                             .diff = x->diff,
                             .mod_file = o->mod_file,
                             .mod_fn = o->mod_fn};
    if (x->threshold && parse_threshold(x->threshold, &co.threshold))
        return cli_bad_usage("annotate", "bad --threshold value '%s' (a number, 0 to 100)",
                             x->threshold);
    struct bytebuf inv = {0};
    bytebuf_printf(&inv, "tally");
    for (int i = 0; i < x->argc; i++)
        bytebuf_printf(&inv, " %s", x->argv[i]);
    bytebuf_addc(&inv, '\0');
    co.invocation = inv.s;

    struct cga *a = cga_new(&co);
    struct tally_error err;
    tally_error_clear(&err);
    int rc = 0;
    /* other formats are refused before anything is read (a stream, after) */
    for (size_t i = 0; i < x->profiles->n && !rc; i++) {
        enum profile_format f;
        enum format_class k = format_classify_path(x->profiles->items[i], &f);
        if ((k == FORMAT_PROFILE && f != PROFILE_FORMAT_CACHEGRIND) || k == FORMAT_PROGRAM)
            rc = not_cachegrind(x->profiles->items[i]);
    }
    for (size_t i = 0; i < x->profiles->n && !rc; i++) {
        const char *path = x->profiles->items[i];
        struct cli_input_options in = {.drop_addr = 1,
                                       .drop_jumps = 1,
                                       .drop_line = !o->auto_annotate,
                                       .no_stacks = 1,
                                       .cg_unspecified = 1};
        struct profile *p = cli_read_inputs(&path, 1, &in, &err);
        if (!p) {
            cli_error(&err);
            rc = 1;
            break;
        }
        if (p->format != PROFILE_FORMAT_CACHEGRIND) {
            rc = not_cachegrind(path);
        } else if (i == 0 && p->nparts && check_events(p->parts[0], o)) {
            rc = 2;
        } else if (cga_add(a, p, path, &err)) {
            cli_error(&err);
            rc = 1;
        }
        profile_free(p);
    }
    if (!rc) {
        static char obuf[1 << 16];
        setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
        if (cga_print(stdout, a, &err)) {
            fflush(stdout);
            cli_error(&err);
            rc = 1;
        }
    }
    cga_free(a);
    bytebuf_release(&inv);
    return rc;
}
