/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof_callgrind.c - the gprof analysis as a callgrind profile.
 *
 * One event, "Time" (microseconds): a symbol's self cost is its histogram
 * credit converted to time, rounded to the nearest microsecond
 * (hist_time / hz * 1e6), so the flat profile's seconds come back when
 * divided by 1e6. Call arcs carry the call count and the time gprof
 * propagated along them (self + children shares, the "self" and
 * "children" columns of the call graph) as their inclusive cost. With -l
 * the self time is given per source line of each function and calls are
 * placed at their call-site lines.
 */
#include "gprof_callgrind.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/format.h"
#include "../model/profile.h"
#include "../symbols/demangle.h"

static uint64_t to_us(double ticks, unsigned hz)
{
    if (!hz || !(ticks > 0)) return 0;
    double v = ticks / (double)hz * 1e6;
    if (v >= 1.8e19) return UINT64_MAX;
    return (uint64_t)llround(v);
}

int gprof_write_callgrind(const struct gprof *g, const struct elf_image *img, const char *cmd,
                          const char *path, struct tally_error *err)
{
    struct profile *p = profile_new();
    struct part *pt = profile_add_part(p);
    int rc = -1;
    pt->positions = POS_LINE;
    pt->cmd = xstrdup(cmd);
    strlist_pushf(&pt->desc, "Time: microseconds from gprof samples (%u per second)", g->hz);
    if (eventset_set_base(&pt->events, "Time", 4, err) || eventset_finish(&pt->events, err)) {
        err->file[0] = '\0';
        goto done;
    }
    uint32_t obj = profile_intern(p, img->path, strlen(img->path));
    uint32_t unknown = profile_intern(p, "???", 3);

    /* function id of every symbol: line symbols belong to the function
     * symbol before them */
    size_t n = g->nsyms;
    uint32_t *fn = xmalloc((n + 1) * sizeof(*fn));
    uint32_t *file = xmalloc((n + 1) * sizeof(*file));
    uint32_t cur = 0, cur_file = unknown;
    bool have_cur = false;
    for (size_t i = 0; i < n; i++) {
        const struct gprof_sym *s = &g->syms[i];
        uint32_t f = s->file ? profile_intern(p, s->file, strlen(s->file)) : unknown;
        file[i] = f;
        if (s->is_func || !have_cur) {
            char *name = demangle_or_copy(s->name, DEMANGLE_AUTO, DEMANGLE_DEFAULT);
            cur = profile_function(p, obj, f, profile_intern(p, name, strlen(name)));
            free(name);
            cur_file = f;
            have_cur = true;
        }
        (void)cur_file;
        fn[i] = cur;
    }
    for (size_t i = 0; i < n; i++) {
        const struct gprof_sym *s = &g->syms[i];
        uint64_t t = to_us(s->hist_time, g->hz);
        if (!t) continue;
        struct position pos = {file[i], s->line, 0, 0};
        if (part_add_cost(p, pt, fn[i], &pos, &t, 1)) {
            tally_error_set(err, path, 0, "time overflows a 64-bit counter");
            goto done2;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const struct gprof_sym *s = &g->syms[i];
        for (const struct gprof_arc *a = s->children; a; a = a->next_child) {
            if (a->count == 0) continue;
            size_t ci = a->child->pos, pi = a->parent->pos;
            struct position site = {file[pi], a->parent->line, 0, 0};
            struct position target = {file[ci], a->child->line, 0, 0};
            uint64_t t = a->parent == a->child ? 0 : to_us(a->time + a->child_time, g->hz);
            if (part_add_call(p, pt, fn[pi], &site, fn[ci], &target, a->count, &t, 1)) {
                tally_error_set(err, path, 0, "a call count overflows a 64-bit counter");
                goto done2;
            }
        }
    }
    rc = profile_write(p, PROFILE_FORMAT_CALLGRIND, path, err);
done2:
    free(fn);
    free(file);
done:
    profile_free(p);
    return rc;
}
