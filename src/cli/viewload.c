/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * viewload.c - the session of tally view's application (view/session.h)
 * made from the command line's inputs, for `tally view` (served) and
 * `tally report` (a snapshot in a page): profiles read part by part and
 * packed as they are read, aprof reports of the run analysed beside them,
 * and the base of a comparison.
 */
#include "cli.h"
#include "../analysis/complexity.h"
#include "../io/input.h"
#include "../model/isprof.h"
#include "../view/session.h"

#include <stdlib.h>
#include <string.h>

struct view_session *cli_view_load(const char *const *files, int nfiles,
                                   const struct cli_view_load *o, struct tally_error *err)
{
    struct view_config cfg = {.title = o->title, .include = o->include, .editor = o->editor};
    for (int i = 0; i < nfiles; i++)
        strlist_push(&cfg.inputs, files[i]);
    struct view_session *s = NULL;
    struct profile *p = NULL;
    /* aprof reports beside the profiles: the complexity of each function */
    const char **aprofs = xcalloc((size_t)nfiles + 1, sizeof(*aprofs));
    const char **profs = xcalloc((size_t)nfiles + 1, sizeof(*profs));
    struct input *aprof_in = xcalloc((size_t)nfiles + 1, sizeof(*aprof_in));
    struct input *prof_in = xcalloc((size_t)nfiles + 1, sizeof(*prof_in));
    int naprof = 0, nprof = 0;
    struct view_packer packed = {0};
    if (cli_sort_inputs(files, nfiles, aprofs, aprof_in, &naprof, profs, prof_in, &nprof, err))
        goto done;
    if (naprof) {
        cfg.isprof = xcalloc(1, sizeof(*cfg.isprof));
        isprof_init(cfg.isprof);
        cfg.complexity = xcalloc(1, sizeof(*cfg.complexity));
        struct complexity_options an;
        complexity_options_init(&an);
        an.min_points = 1;
        an.min_share = 0;
        if (cli_read_aprofs(aprofs, aprof_in, naprof, cfg.isprof, err) ||
            complexity_analyse(cfg.isprof, &an, cfg.complexity, err))
            goto done;
    }
    if (o->base && o->base->n) {
        struct cli_input_options bin = {.drop_jumps = 1, .drop_addr = 1, .drop_index = 1};
        cli_progress_start((const char *const *)o->base->items, (int)o->base->n);
        cfg.base = cli_read_inputs((const char *const *)o->base->items, (int)o->base->n, &bin, err);
        cli_progress_stop();
        if (!cfg.base) goto done;
        cfg.base_inputs = *o->base; /* the session copies it */
    }
    if (!nprof) {
        tally_error_set(err, aprofs[0], 0,
                        "an aprof report alone is no profile: give the callgrind or contexts "
                        "file of the run too (tally complexity reads reports alone)");
        goto done;
    }
    cfg.packed = &packed;
    struct cli_input_options in = {.part_done = view_pack_part,
                                   .part_done_ctx = &packed,
                                   .drop_jumps = 1,
                                   .drop_addr = 1,
                                   .drop_index = 1,
                                   .keep_parts = 1,
                                   .pair_runs = CLI_PAIR_JOIN,
                                   .opened = prof_in};
    prof_in = NULL; /* cli_read_inputs takes them */
    cli_progress_start(profs, nprof);
    p = cli_read_inputs(profs, nprof, &in, err);
    cli_progress_stop();
    if (p) {
        s = view_session_new(p, &cfg, err); /* takes the profile and the reports */
        cfg.isprof = NULL;
        cfg.complexity = NULL;
        cfg.base = NULL;
    }
done:
    view_packer_release(&packed);
    profile_free(cfg.base);
    if (cfg.complexity) complexity_release(cfg.complexity);
    free(cfg.complexity);
    if (cfg.isprof) isprof_release(cfg.isprof);
    free(cfg.isprof);
    for (int i = 0; prof_in && i < nprof; i++)
        input_close(&prof_in[i]);
    free(prof_in);
    free(aprof_in);
    free(aprofs);
    free(profs);
    strlist_release(&cfg.inputs);
    return s;
}
