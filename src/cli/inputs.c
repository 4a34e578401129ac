/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inputs.c - the profile inputs of the commands that draw or convert
 * (flame, graph, report, convert): every file tally reads, added up into
 * one profile of one part (see cli_read_inputs() in cli.h).
 *
 * A GNU gmon.out goes through the gprof analysis: the program (an ELF file
 * among the inputs) and its gmon.out files become one profile with the
 * event `Time` (microseconds), exactly as `tally gprof --callgrind-out`
 * makes it: the callgrind file is written to a temporary file and read back.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../analysis/gprof.h"
#include "../analysis/gprof_callgrind.h"
#include "../analysis/runpair.h"
#include "../analysis/symspec.h"
#include "../formats/format.h"
#include "../formats/gmon.h"
#include "../io/outfile.h"
#include "../model/cct.h"
#include "../symbols/elfsyms.h"
#include "../symbols/lines.h"

/* What the first bytes of a file say it is. */
enum cli_input_kind { CLI_IN_PROFILE, CLI_IN_ELF, CLI_IN_GMON };

/* What the first bytes of an opened input say it is (nothing is consumed). */
static enum cli_input_kind input_kind(struct input *in)
{
    const char *b;
    size_t n;
    struct tally_error e;
    if (input_peek(in, 4, &b, &n, &e)) return CLI_IN_PROFILE; /* the reader reports it */
    if (n == 4 && memcmp(b, "\177ELF", 4) == 0) return CLI_IN_ELF;
    if (n == 4 && memcmp(b, "gmon", 4) == 0) return CLI_IN_GMON;
    return CLI_IN_PROFILE;
}

/* Is the opened input a callgrind, cachegrind or contexts file? */
static int looks_like_profile(struct input *in)
{
    const char *b;
    size_t n;
    struct tally_error e;
    return input_peek(in, 4096, &b, &n, &e) == 0 && format_detect(b, n) != PROFILE_FORMAT_UNKNOWN;
}

/*
 * The same by path, for plain files only: a pipe, a FIFO or standard
 * input is not opened here (it could not be read again) and counts as a
 * profile.
 */
static enum cli_input_kind file_kind(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return CLI_IN_PROFILE;
    FILE *fp = fopen(path, "rb");
    if (!fp) return CLI_IN_PROFILE; /* profile_read reports the error */
    unsigned char b[4] = {0};
    size_t n = fread(b, 1, 4, fp);
    fclose(fp);
    if (n == 4 && memcmp(b, "\177ELF", 4) == 0) return CLI_IN_ELF;
    if (n == 4 && memcmp(b, "gmon", 4) == 0) return CLI_IN_GMON;
    return CLI_IN_PROFILE;
}

int cli_gmon_check_hists(const struct gmon *gm, size_t from, const struct elf_image *img,
                         const char *exe, const char *gmon, struct tally_error *err)
{
    if (!img->nsyms) return 0;
    uint64_t lo = img->syms[0].addr, hi = img->syms[img->nsyms - 1].end_addr;
    for (size_t h = from; h < gm->nhists; h++)
        if (gm->hists[h].high_pc <= lo || gm->hists[h].low_pc > hi)
            return tally_error_set(err, gmon, 0,
                                   "its histogram (0x%llx-0x%llx) lies outside the text of %s "
                                   "(0x%llx-0x%llx): a profile of another program?",
                                   (unsigned long long)gm->hists[h].low_pc,
                                   (unsigned long long)gm->hists[h].high_pc, exe,
                                   (unsigned long long)lo, (unsigned long long)hi);
    return 0;
}

/* gprof's own profiling routines, left out as `tally gprof` leaves them out */
static const char *const gprof_excluded[] = {"_gprof_mcount",     "mcount",     "_mcount",
                                             "__mcount_internal", "__mcleanup", "__mcount"};

/*
 * The gprof analysis of program `exe` and its gmon files as a profile.
 * Returns NULL with err on failure.
 */
static struct profile *read_gmon(const char *exe, struct input **gmons, int ngmons,
                                 const struct read_options *ro, struct tally_error *err)
{
    struct profile *p = NULL;
    struct elf_image img;
    memset(&img, 0, sizeof(img));
    struct line_table lt;
    memset(&lt, 0, sizeof(lt));
    struct gmon gm;
    gmon_init(&gm);
    struct gprof g;
    memset(&g, 0, sizeof(g));
    int have_g = 0;
    struct symspec_set specs;
    symspec_set_init(&specs);
    struct elf_image_options eopts = {0};
    struct gmon_read_opts gopts = {0};
    const char *tmpdir = getenv("TMPDIR");
    char *tmp = xasprintf("%s/tally-gmon-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = -1;

    for (size_t i = 0; i < sizeof(gprof_excluded) / sizeof(gprof_excluded[0]); i++) {
        symspec_set_add(&specs, gprof_excluded[i], SYMSPEC_EXCL_TIME);
        symspec_set_add(&specs, gprof_excluded[i], SYMSPEC_EXCL_GRAPH);
        symspec_set_add(&specs, gprof_excluded[i], SYMSPEC_EXCL_FLAT);
    }
    if (elf_image_open(&img, exe, &eopts, err)) goto out;
    if (line_table_open(&lt, &img, err)) goto out;
    line_table_annotate(&lt, &img);
    gprof_init(&g, img.syms, img.nsyms, false);
    have_g = 1;
    {
        struct symspec_sym *ss = xmalloc((img.nsyms + 1) * sizeof(*ss));
        for (size_t i = 0; i < img.nsyms; i++) {
            ss[i].name = img.syms[i].name;
            ss[i].file = img.syms[i].file;
            ss[i].line = img.syms[i].line;
            ss[i].addr = img.syms[i].addr;
            ss[i].end_addr = img.syms[i].end_addr;
        }
        symspec_set_resolve(&specs, ss, img.nsyms);
        free(ss);
    }
    gopts.flavour = GMON_FLAVOUR_AUTO;
    gopts.layout.addr_size = img.elf_class == 32 ? 4 : 8;
    gopts.layout.big_endian = img.big_endian;
    long hz = sysconf(_SC_CLK_TCK);
    gopts.hertz = hz > 0 ? (unsigned)hz : 0;
    size_t arcs_done = 0;
    for (int i = 0; i < ngmons; i++) {
        size_t hists_before = gm.nhists;
        if (gmon_read_input(&gm, gmons[i], &gopts, err) ||
            cli_gmon_check_hists(&gm, hists_before, &img, exe, gmons[i]->path, err))
            goto out;
        for (; arcs_done < gm.narcs; arcs_done++)
            gprof_tally(&g, gm.arcs[arcs_done].from_pc, gm.arcs[arcs_done].self_pc,
                        gm.arcs[arcs_done].count, &specs);
    }
    for (size_t i = 0; i < gm.warnings.n; i++)
        fprintf(stderr, "tally: warning: %s\n", gm.warnings.items[i]);
    gprof_assign_hist(&g, &gm, &specs);
    if (gm.input & GMON_INPUT_BB) gprof_add_bbs(&g, &gm);
    if (gm.input & GMON_INPUT_ARCS) gprof_assemble(&g, &specs, NULL);

    fd = mkstemp(tmp);
    if (fd < 0) {
        tally_error_set(err, NULL, 0, "cannot create a temporary file like %s", tmp);
        goto out;
    }
    close(fd);
    int slot = outfile_track_temp(tmp); /* removed on SIGINT and SIGTERM too */
    if (gprof_write_callgrind(&g, &img, exe, tmp, err) == 0) {
        p = profile_read(tmp, ro, err);
        if (p) {
            free(p->path);
            p->path = xstrdup(gmons[0]->path);
        } else {
            snprintf(err->file, sizeof(err->file), "%s", gmons[0]->path);
        }
    }
    unlink(tmp);
    outfile_untrack_temp(slot);
out:
    free(tmp);
    if (have_g) gprof_release(&g);
    gmon_release(&gm);
    line_table_close(&lt);
    elf_image_close(&img);
    symspec_set_release(&specs);
    return p;
}

/*
 * Add the calling-context tree of `src` into that of `dst`. Returns 0, 1
 * when they cannot be added (an event of src has no place in dst's tree),
 * or -1 with err on overflow.
 */
static int add_cct(struct profile *dst, const struct profile *src, struct tally_error *err)
{
    const struct eventset *des = &dst->parts[0]->events, *ses = &src->parts[0]->events;
    size_t ne = src->cct->nevents;
    size_t *emap = xcalloc(ne + 1, sizeof(*emap));
    int rc = 0;
    for (size_t e = 0; e < ne && !rc; e++) {
        int k = e < ses->n ? eventset_index(des, ses->names[e]) : -1;
        if (k < 0 || (size_t)k >= dst->cct->nevents)
            rc = 1;
        else
            emap[e] = (size_t)k;
    }
    if (!rc) rc = cct_add_tree(dst->cct, dst, src->cct, src, emap, err);
    free(emap);
    return rc;
}

/* Add profile `src` (one part) into `dst` (one part), their trees too. */
static int add_profile(struct profile *dst, struct profile *src, int *dropped,
                       struct tally_error *err)
{
    if (src->signed_costs && profile_make_signed(dst, err)) return -1;
    if (dst->signed_costs && profile_make_signed(src, err)) return -1;
    if (part_accumulate(dst, dst->parts[0], src, src->parts[0], err)) return -1;
    /* a sum of several processes or threads is none of them */
    struct part *d = dst->parts[0];
    const struct part *s = src->parts[0];
    if (d->has_pid && (!s->has_pid || s->pid != d->pid)) d->has_pid = 0;
    if (d->has_thread && (!s->has_thread || s->thread != d->thread)) d->has_thread = 0;
    if (dst->cct) {
        dst->cct->has_thread = d->has_thread;
        dst->cct->thread = d->thread;
    }
    int rc = dst->cct && src->cct ? add_cct(dst, src, err) : dst->cct || src->cct ? 1 : 0;
    if (rc < 0) return -1;
    if (rc == 1) {
        *dropped = 1;
        cct_free(dst->cct);
        dst->cct = NULL;
    }
    return 0;
}

int cli_split_two_inputs(const char *const *files, int nfiles)
{
    int inputs = 0, second = -1;
    for (int i = 0; i < nfiles; i++) {
        enum cli_input_kind k = file_kind(files[i]);
        /* gmon.out files after a program belong to it */
        if (k == CLI_IN_GMON && i > 0 && file_kind(files[i - 1]) != CLI_IN_PROFILE) continue;
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
        } else if (input_open(&ins[i], files[i], err)) {
            failed = -1;
            break;
        }
        nopen = i + 1;
        switch (input_kind(&ins[i])) {
        case CLI_IN_ELF:
            if (exe)
                failed = tally_error_set(err, files[i], 0,
                                         "a second program (after %s): gmon.out files "
                                         "belong to exactly one",
                                         exe);
            exe = files[i];
            input_close(&ins[i]); /* the program is read by its name */
            break;
        case CLI_IN_GMON:
            gmons[ngmons++] = &ins[i];
            break;
        default:
            /* after a program and its gmon.out files, a file that is no
               profile is one of its gmon.out files too (an old BSD one, or
               a damaged one: the gmon reader names what is wrong with it) */
            if (exe && (ngmons ? gmons[ngmons - 1] == &ins[i - 1] : !strcmp(exe, files[i - 1])) &&
                !looks_like_profile(&ins[i]))
                gmons[ngmons++] = &ins[i];
            else
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
    ro.merge_parts = 1;
    ro.drop_jumps = o && o->drop_jumps;
    ro.drop_addr = o && o->drop_addr;
    if (o) o->mixed = 0;
    if (!failed && ngmons && !(sum = read_gmon(exe, gmons, ngmons, &ro, err))) failed = -1;
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
        int join = same_run && o && o->pair_runs && nprofs == 2;
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
            if (add_profile(sum, p, &dropped, err)) {
                if (!err->file[0]) snprintf(err->file, sizeof(err->file), "%s", profs[i]->path);
                failed = -1;
            }
        }
        profile_free(p);
    }
    profile_ahead_stop(ahead);
    if (!failed && dropped)
        cli_errorf("warning: not every input has calling contexts with the same events: the "
                   "stacks of the sum are estimated from call arcs");
    if (failed) {
        profile_free(sum);
        sum = NULL;
    }
    for (int i = 0; i < nopen; i++)
        input_close(&ins[i]);
    free(ins);
    free(gmons);
    free(profs);
    return sum;
}
