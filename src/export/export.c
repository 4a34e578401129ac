/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export.c - the table of exporters (export.h): one row per derived view,
 * and the few lines that adapt each writer to the common signature.
 */
#include "export.h"

#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "json.h"
#include "pprof.h"
#include "speedscope.h"

static int json_row(const struct profile *p, const struct stack_tree *t,
                    const struct export_options *o, FILE *fp, struct tally_error *err)
{
    (void)t;
    struct json_options jo = {.lines = o->lines, .source = NULL};
    return json_write(p, fp, &jo, err);
}

static int folded_row(const struct profile *p, const struct stack_tree *t,
                      const struct export_options *o, FILE *fp, struct tally_error *err)
{
    (void)p;
    (void)o;
    return folded_write(t, 0, fp, err); /* the tree holds the chosen event only */
}

static int speedscope_row(const struct profile *p, const struct stack_tree *t,
                          const struct export_options *o, FILE *fp, struct tally_error *err)
{
    const char *cmd = p->nparts ? p->parts[0]->cmd : NULL;
    struct speedscope_options so = {.name = cmd ? cmd : p->path, .exporter = o->exporter};
    return speedscope_write(t, fp, &so, err);
}

static int pprof_row(const struct profile *p, const struct stack_tree *t,
                     const struct export_options *o, FILE *fp, struct tally_error *err)
{
    const char *cmd = p->nparts ? p->parts[0]->cmd : NULL;
    char *comment = cmd ? xasprintf("cmd: %s", cmd) : NULL;
    struct pprof_options po = {.default_event = o->event, .comment = comment};
    int rc = pprof_write(t, fp, &po, err);
    free(comment);
    return rc;
}

const struct exporter exporters[] = {
    {"json", EXPORT_NO_STACKS, 0, json_row},
    {"folded", EXPORT_STACKS_ONE_EVENT, 0, folded_row},
    {"speedscope", EXPORT_STACKS_ALL, 0, speedscope_row},
    {"pprof", EXPORT_STACKS_ALL, 1, pprof_row},
    {NULL, EXPORT_NO_STACKS, 0, NULL},
};

const struct exporter *exporter_find(const char *name)
{
    for (const struct exporter *e = exporters; e->name; e++)
        if (strcmp(name, e->name) == 0) return e;
    return NULL;
}
