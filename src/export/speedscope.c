/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * speedscope.c - speedscope's JSON file format from a stack tree (see
 * speedscope.h).
 */
#include "speedscope.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "json.h"

/* Frame index of every node: one frame per function, plus "[other]" for
 * the root when it has weight of its own. */
static uint32_t *make_frames(const struct stack_tree *t, FILE *fp, int *other_frame)
{
    size_t nfn = t->p ? profile_nfunctions(t->p) : 0;
    uint32_t *of_fn = xmalloc((nfn + 1) * sizeof(*of_fn));
    for (size_t f = 0; f <= nfn; f++)
        of_fn[f] = UINT32_MAX;
    uint32_t *frame = xcalloc(t->n + 1, sizeof(*frame));
    uint64_t *line = folded_start_lines(t->p);
    uint32_t nframes = 0;
    fputs("  \"shared\": {\"frames\": [", fp);
    for (uint32_t i = folded_next(t, 0); i; i = folded_next(t, i)) {
        uint32_t fn = t->nodes[i].fn;
        size_t slot = fn < nfn ? fn : nfn; /* unknown functions share one frame */
        if (of_fn[slot] == UINT32_MAX) {
            of_fn[slot] = nframes++;
            fputs(nframes > 1 ? ",\n    " : "\n    ", fp);
            fputs("{\"name\": ", fp);
            const char *name = folded_name(t, i);
            json_put_string(fp, *name ? name : "???");
            const char *file = folded_file(t, i);
            if (*file && strcmp(file, "???") != 0) {
                fputs(", \"file\": ", fp);
                json_put_string(fp, file);
                if (fn < nfn && line[fn]) fprintf(fp, ", \"line\": %" PRIu64, line[fn]);
            }
            putc('}', fp);
        }
        frame[i] = of_fn[slot];
    }
    *other_frame = -1;
    for (size_t e = 0; t->n && e < t->nev; e++)
        if (folded_weight(t, 0, e)) *other_frame = (int)nframes;
    if (*other_frame >= 0)
        fputs(nframes ? ",\n    {\"name\": \"[other]\"}" : "\n    {\"name\": \"[other]\"}", fp);
    fputs("\n  ]},\n", fp);
    free(of_fn);
    free(line);
    return frame;
}

int speedscope_write(const struct stack_tree *t, FILE *fp, const struct speedscope_options *o,
                     struct tally_error *err)
{
    uint32_t maxdepth = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->nodes[i].depth > maxdepth) maxdepth = t->nodes[i].depth;
    uint32_t *path = xcalloc((size_t)maxdepth + 2, sizeof(*path));

    fputs("{\n  \"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n", fp);
    int other;
    uint32_t *frame = make_frames(t, fp, &other);
    fputs("  \"profiles\": [", fp);
    for (size_t e = 0; e < t->nev; e++) {
        fputs(e ? ",\n    " : "\n    ", fp);
        fputs("{\"type\": \"sampled\", \"name\": ", fp);
        json_put_string(fp, t->ev_names ? t->ev_names[e] : "");
        fprintf(fp, ", \"unit\": \"none\", \"startValue\": 0, \"endValue\": %" PRIu64 ",\n",
                t->n ? stack_total(t, 0)[e] : 0);
        /* samples, then weights in the same order */
        fputs("     \"samples\": [", fp);
        int first = 1;
        if (other >= 0 && folded_weight(t, 0, e)) {
            fprintf(fp, "[%d]", other);
            first = 0;
        }
        for (uint32_t i = folded_next(t, 0); i; i = folded_next(t, i)) {
            uint32_t d = t->nodes[i].depth;
            if (d == 0 || d > maxdepth) continue;
            path[d] = frame[i];
            if (!folded_weight(t, i, e)) continue;
            fputs(first ? "\n       [" : ",\n       [", fp);
            first = 0;
            for (uint32_t k = 1; k <= d; k++)
                fprintf(fp, k > 1 ? ", %" PRIu32 : "%" PRIu32, path[k]);
            putc(']', fp);
        }
        fputs("],\n     \"weights\": [", fp);
        first = 1;
        if (other >= 0 && folded_weight(t, 0, e)) {
            fprintf(fp, "%" PRIu64, folded_weight(t, 0, e));
            first = 0;
        }
        for (uint32_t i = folded_next(t, 0); i; i = folded_next(t, i)) {
            uint32_t d = t->nodes[i].depth;
            if (d == 0 || d > maxdepth) continue;
            uint64_t w = folded_weight(t, i, e);
            if (!w) continue;
            fprintf(fp, first ? "%" PRIu64 : ", %" PRIu64, w);
            first = 0;
        }
        fputs("]}", fp);
    }
    fputs(t->nev ? "\n  ],\n" : "],\n", fp);
    fputs("  \"name\": ", fp);
    {
        const char *what = o && o->name ? o->name : "profile";
        const char *how = t->method                 ? t->method
                          : t->kind == STACKS_EXACT ? "exact stacks"
                                                    : "estimated stacks";
        char *s = xasprintf("%s (%s)", what, how);
        json_put_string(fp, s);
        free(s);
    }
    fputs(",\n  \"activeProfileIndex\": 0,\n  \"exporter\": ", fp);
    json_put_string(fp, o && o->exporter ? o->exporter : "tally");
    fputs("\n}\n", fp);
    free(frame);
    free(path);
    if (ferror(fp)) return tally_error_set(err, NULL, 0, "write error");
    return 0;
}
