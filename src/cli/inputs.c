/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inputs.c - the profile inputs of the commands that draw or convert
 * (flame, graph, report, convert): every file tally reads, added up into
 * one profile of one part (see cli_read_inputs() in cli.h).
 *
 * A GNU gmon.out goes through the gprof analysis: the program (an ELF file
 * among the inputs) and its gmon.out files become one profile with the
 * event `Time` (microseconds), exactly as `tally gprof --callgrind-out`
 * writes it (analysis/gprof_load.h).
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/gprof_load.h"
#include "../analysis/merge.h"
#include "../analysis/runpair.h"
#include "../formats/aprof.h"
#include "../formats/format.h"
#include "../model/cct.h"

/*
 * Each part of src as a new part of dst, with its metadata (keep_parts).
 * Returns 0, or -1 with err.
 */
static int append_parts(struct profile *dst, const struct profile *src, struct tally_error *err)
{
    if (src->signed_costs != dst->signed_costs)
        return tally_error_set(err, src->path, 0,
                               "a profile of differences cannot be a part beside a profile");
    for (size_t i = 0; i < src->nparts; i++) {
        const struct part *s = src->parts[i];
        struct part *d = profile_add_part(dst);
        if (part_accumulate(dst, d, src, s, err)) return -1;
        d->has_pid = s->has_pid;
        d->pid = s->pid;
        d->has_thread = s->has_thread;
        d->thread = s->thread;
        d->has_part = s->has_part;
        d->part_no = s->part_no;
    }
    return 0;
}

/*
 * The gprof analysis of program `exe` and its gmon files as a profile.
 * Returns NULL with err on failure.
 */
static struct profile *read_gmon(const char *exe, struct input **gmons, int ngmons,
                                 struct tally_error *err)
{
    struct profile *p = NULL;
    struct symspec_set specs;
    symspec_set_init(&specs);
    gprof_exclude_mcount(&specs);
    struct gprof_load L;
    gprof_load_init(&L);
    struct gprof_load_options lo = {
        .exe = exe, .specs = &specs, .max_records = cli_gmon_max_records};
    int rc = gprof_load(&L, &lo, err);
    for (int i = 0; rc == 0 && i < ngmons; i++)
        rc = gprof_load_gmon(&L, &lo, gmons[i], err);
    if (rc == 0) {
        for (size_t i = 0; i < L.gm.warnings.n; i++)
            fprintf(stderr, "tally: warning: %s\n", L.gm.warnings.items[i]);
        gprof_load_finish(&L, &specs, false);
        p = gprof_to_profile(&L.g, &L.img, exe, err);
        if (p)
            p->path = xstrdup(gmons[0]->path);
        else
            snprintf(err->file, sizeof(err->file), "%s", gmons[0]->path);
    }
    gprof_load_release(&L);
    symspec_set_release(&specs);
    return p;
}

int cli_split_two_inputs(const char *const *files, int nfiles)
{
    int inputs = 0, second = -1;
    enum profile_format f, prevf = PROFILE_FORMAT_UNKNOWN;
    enum format_class prev = FORMAT_OTHER;
    for (int i = 0; i < nfiles; i++) {
        enum format_class k = format_classify_path(files[i], &f);
        int gmon = k == FORMAT_PROFILE && f == PROFILE_FORMAT_GMON;
        int after_prog =
            prev == FORMAT_PROGRAM || (prev == FORMAT_PROFILE && prevf == PROFILE_FORMAT_GMON);
        prev = k;
        prevf = f;
        /* gmon.out files after a program belong to it */
        if (gmon && i > 0 && after_prog) continue;
        if (++inputs == 2) second = i;
    }
    return inputs == 2 ? second : -1;
}

struct profile *cli_read_inputs(const char *const *files, int nfiles, struct cli_input_options *o,
                                struct tally_error *err)
{
    const char *exe = NULL;
    /* every input is opened once: its first bytes say what it is, and its
       reader starts from them (a pipe cannot be opened again) */
    struct input *ins = xcalloc((size_t)nfiles + 1, sizeof(*ins));
    struct input **gmons = xcalloc((size_t)nfiles + 1, sizeof(*gmons));
    struct input **profs = xcalloc((size_t)nfiles + 1, sizeof(*profs));
    int ngmons = 0, nprofs = 0, failed = 0, dropped = 0, nopen = 0;
    struct profile *sum = NULL;
    for (int i = 0; i < nfiles && !failed; i++) {
        if (o && o->opened && o->opened[i].path) {
            ins[i] = o->opened[i];
            memset(&o->opened[i], 0, sizeof(o->opened[i]));
        } else if (cli_open_input(&ins[i], files[i], err)) {
            failed = -1;
            break;
        }
        nopen = i + 1;
        enum profile_format f;
        enum format_class k = format_classify(&ins[i], &f, NULL); /* nothing is consumed */
        if (k == FORMAT_PROGRAM) {
            if (exe)
                failed = tally_error_set(err, files[i], 0,
                                         "a second program (after %s): gmon.out files "
                                         "belong to exactly one",
                                         exe);
            exe = files[i];
            input_close(&ins[i]); /* the program is read by its name */
        } else if (k == FORMAT_PROFILE && f == PROFILE_FORMAT_GMON) {
            gmons[ngmons++] = &ins[i];
        } else if (exe && k != FORMAT_PROFILE &&
                   (ngmons ? gmons[ngmons - 1] == &ins[i - 1] : !strcmp(exe, files[i - 1]))) {
            /* after a program and its gmon.out files, a file that is no
               profile is one of its gmon.out files too (an old BSD one, or
               a damaged one: the gmon reader names what is wrong with it) */
            gmons[ngmons++] = &ins[i];
        } else {
            profs[nprofs++] = &ins[i];
        }
    }
    if (o && o->opened) {
        for (int i = 0; i < nfiles; i++)
            input_close(&o->opened[i]);
        free(o->opened);
        o->opened = NULL;
    }
    if (!failed && ngmons && !exe)
        failed = tally_error_set(err, gmons[0]->path, 0,
                                 "a gmon.out file needs its program: give the executable "
                                 "built with -pg as an input too");
    if (!failed && exe && !ngmons)
        failed = tally_error_set(err, exe, 0,
                                 "a program is not a profile (give its gmon.out files after it)");
    struct read_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.merge_parts = !(o && o->keep_parts);
    if (o && o->keep_parts && o->part_done && nprofs == 1 && !ngmons) {
        /* one input: its parts are the result's, as they are read */
        ro.part_done = o->part_done;
        ro.part_done_ctx = o->part_done_ctx;
    }
    ro.drop_jumps = o && o->drop_jumps;
    ro.drop_addr = o && o->drop_addr;
    ro.drop_line = o && o->drop_line;
    ro.callgrind.call_counts_only = o && o->call_counts_only;
    ro.callgrind.split_min = cli_read_split;
    ro.cachegrind.unindexed = 1; /* every input after the first is only added into the sum */
    ro.cachegrind.fl_unspecified = o && o->cg_unspecified;
    if (o) o->mixed = 0;
    if (!failed && ngmons && !(sum = read_gmon(exe, gmons, ngmons, err))) failed = -1;
    /* the next input is read on the second processor while this one is added */
    struct profile_ahead *ahead = failed ? NULL : profile_ahead_start(profs, (size_t)nprofs, &ro);
    for (int i = 0; i < nprofs && !failed; i++) {
        struct profile *p = profile_ahead_next(ahead, err);
        if (!p) {
            failed = -1;
            break;
        }
        cli_warnings(p);
        /* the contexts and callgrind files of one run? */
        int same_run = sum && !ngmons && (runpair_match(sum, p) || runpair_match(p, sum));
        enum cli_pair pair = same_run && o && nprofs == 2 ? o->pair_runs : CLI_PAIR_SUM;
        int join = pair == CLI_PAIR_JOIN;
        if (pair == CLI_PAIR_CALLGRIND) {
            /* the callgrind file has all the view shows: the other is dropped */
            if (runpair_match(sum, p)) {
                profile_free(sum);
                sum = p;
            } else {
                profile_free(p);
            }
            cli_progress_note(NULL);
            continue;
        }
        /* the first of two inputs keeps its tree until the second says whether they pair */
        if (o && o->no_stacks && (sum || !(nprofs == 2 && o->pair_runs))) {
            cct_free(p->cct);
            p->cct = NULL;
            if (sum) {
                cct_free(sum->cct);
                sum->cct = NULL;
            }
        }
        if (sum && o && !join && p->format != sum->format) o->mixed = 1;
        if (p->nparts == 0) {
            failed = tally_error_set(err, profs[i]->path, 0, "the profile holds no data");
        } else if (join) {
            /* the contexts and callgrind files of one run: one profile, not a sum */
            struct profile *j =
                runpair_match(sum, p) ? runpair_join(sum, p, err) : runpair_join(p, sum, err);
            profile_free(sum);
            sum = j;
            if (!j) failed = -1;
        } else if (!sum) {
            sum = p;
            p = NULL;
        } else {
            if (same_run && i == 1)
                cli_errorf("warning: %s and %s are the contexts and callgrind files of one run: "
                           "their sum counts every cost twice",
                           profs[0]->path, profs[1]->path);
            const char *base = strrchr(profs[i]->path, '/');
            cli_progress_note("merging %s into the sum (%d of %d)",
                              base ? base + 1 : profs[i]->path, i + 1, nprofs);
            if (o && o->keep_parts ? append_parts(sum, p, err)
                                   : profile_sum(sum, p, &dropped, err)) {
                if (!err->file[0]) snprintf(err->file, sizeof(err->file), "%s", profs[i]->path);
                failed = -1;
            }
        }
        profile_free(p);
        cli_progress_note(NULL);
    }
    profile_ahead_stop(ahead);
    if (!failed && dropped)
        cli_errorf("warning: not every input has calling contexts with the same events: the "
                   "stacks of the sum are estimated from call arcs");
    if (failed) {
        profile_free(sum);
        sum = NULL;
    }
    if (sum && sum->nparts > 1 && sum->cct) {
        cct_free(sum->cct); /* a tree of the first part only */
        sum->cct = NULL;
    }
    if (sum && o && o->drop_index) profile_drop_indexes(sum);
    for (int i = 0; i < nopen; i++)
        input_close(&ins[i]);
    free(ins);
    free(gmons);
    free(profs);
    return sum;
}

int cli_sort_inputs(const char *const *files, int nfiles, const char **aprofs,
                    struct input *aprof_in, int *naprof, const char **profs, struct input *prof_in,
                    int *nprof, struct tally_error *err)
{
    *naprof = *nprof = 0;
    for (int i = 0; i < nfiles; i++) {
        struct input in;
        enum profile_format f;
        if (cli_open_input(&in, files[i], err)) goto fail;
        enum format_class k = format_classify(&in, &f, err);
        if (k == FORMAT_UNREADABLE) {
            input_close(&in);
            goto fail;
        }
        if (k == FORMAT_PROFILE && f == PROFILE_FORMAT_APROF) {
            aprof_in[*naprof] = in;
            aprofs[(*naprof)++] = files[i];
        } else {
            prof_in[*nprof] = in;
            profs[(*nprof)++] = files[i];
        }
    }
    return 0;
fail:
    for (int i = 0; i < *naprof; i++)
        input_close(&aprof_in[i]);
    for (int i = 0; i < *nprof; i++)
        input_close(&prof_in[i]);
    *naprof = *nprof = 0;
    return -1;
}

int cli_read_aprofs(const char *const *files, struct input *ins, int n, struct isprof *ip,
                    struct tally_error *err)
{
    int rc = 0;
    cli_progress_start(files, n);
    if (n > 0) rc = aprof_read_input(ip, &ins[0], err);
    for (int i = 1; i < n && !rc; i++) {
        struct isprof next;
        isprof_init(&next);
        struct strlist warnings = {0};
        rc = aprof_read_input(&next, &ins[i], err);
        if (rc == 0) {
            const char *base = strrchr(files[i], '/');
            cli_progress_note("merging %s into the sum (%d of %d)", base ? base + 1 : files[i],
                              i + 1, n);
            rc = isprof_merge(ip, &next, &warnings, err);
            cli_progress_note(NULL);
            if (rc && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", files[i]);
        }
        if (warnings.n) cli_progress_stop();
        for (size_t w = 0; w < warnings.n; w++)
            fprintf(stderr, "tally: warning: %s: %s\n", files[i], warnings.items[w]);
        strlist_release(&warnings);
        isprof_release(&next);
    }
    cli_progress_stop();
    for (int i = 0; i < n; i++)
        input_close(&ins[i]);
    return rc;
}
