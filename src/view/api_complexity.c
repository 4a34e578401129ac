/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * api_complexity.c - `api/complexity`: a function's cost against its input
 * size from the aprof report given with the profile, and the growth class
 * fitted to it (analysis/complexity.h, analysis/fitcheck.h). See api.h.
 */
#include "api_impl.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "../analysis/complexity.h"
#include "../io/jsonstr.h"

static void put_double(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.17g", v);
    else
        fputs("null", fp);
}

/* The routine of the report for function node v: the same name, in the
   same object when several objects have one. */
static const struct complexity_routine *routine_of(const struct view_sel *s, uint32_t v)
{
    const struct complexity *c = s->ses->cfg.complexity;
    struct function f = profile_function_at(s->p, s->g.fn[v]);
    const char *name = profile_str(s->p, f.name), *obj = profile_str(s->p, f.obj);
    const struct complexity_routine *found = NULL;
    for (size_t i = 0; i < c->nall; i++) {
        const struct complexity_routine *r = &c->all[i];
        if (strcmp(r->name, name)) continue;
        if (!found || (r->image && !strcmp(r->image, obj))) found = r;
    }
    return found;
}

void api_complexity(struct view_sel *s, const struct view_args *a, struct view_reply *r)
{
    const struct complexity *c = s->ses->cfg.complexity;
    if (!c) {
        api_error(r, 404, "no aprof report was given (tally view PROFILE REPORT.aprof)");
        return;
    }
    uint32_t v = api_node_arg(s, a, r);
    if (v == VIEW_NO_NODE) return;
    const struct complexity_routine *rt = routine_of(s, v);
    if (!rt) {
        api_error(r, 404, "the aprof report has no routine of this name");
        return;
    }
    struct api_out o;
    api_open(&o);
    FILE *fp = o.fp;
    fputs("{\"name\": ", fp);
    jsonstr_puts(fp, rt->name, 0);
    fputs(", \"image\": ", fp);
    jsonstr_puts(fp, rt->image ? rt->image : "", 0);
    fprintf(fp, ", \"cost\": \"%s\", \"calls\": %" PRIu64 ", \"share\": ",
            c->cost == COMPLEXITY_COST_SELF ? "self" : "cumulative", rt->calls);
    put_double(fp, rt->share);
    fputs(", \"points\": [", fp);
    for (size_t i = 0; i < rt->npoints; i++) {
        const struct complexity_point *p = &rt->points[i];
        fprintf(fp, "%s[%" PRIu64 ", ", i ? ", " : "", p->n);
        put_double(fp, p->worst);
        fputs(", ", fp);
        put_double(fp, p->avg);
        fputs(", ", fp);
        put_double(fp, p->best);
        fprintf(fp, ", %" PRIu64 "]", p->calls);
    }
    fputs("], \"class\": ", fp);
    if (rt->check.why == FITCHECK_CLASS)
        jsonstr_puts(fp, fit_class_name(rt->check.cls), 0);
    else
        fputs("null", fp);
    char why[256];
    fputs(", \"why\": ", fp);
    if (rt->check.why == FITCHECK_CLASS)
        fputs("null", fp);
    else
        jsonstr_puts(fp, fitcheck_reason(&rt->check, why, sizeof(why)), 0);
    fputs(", \"model\": {\"a\": ", fp);
    put_double(fp, rt->power.a);
    fputs(", \"b\": ", fp);
    put_double(fp, rt->power.b);
    fputs(", \"c\": ", fp);
    put_double(fp, rt->power.c);
    fputs(", \"r2\": ", fp);
    put_double(fp, rt->power.r2);
    fputs("}}\n", fp);
    api_close(&o, r, 200);
}
