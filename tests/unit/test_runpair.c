/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_runpair.c - joining the contexts file and the callgrind file of one
 * run (analysis/runpair.h).
 *
 * The two files below describe one made-up run as tally record writes it:
 * the contexts file names each function once, by its first file; the
 * callgrind file splits main (code inlined from inl.h) and one of the two
 * static helpers (code from x.h) by file. Every expected value is read off
 * the two texts.
 */
#include "testutil.h"

#include "analysis/runpair.h"
#include "formats/contexts.h"
#include "model/cct.h"

static const char ctx_text[] = "# tally contexts 1\n"
                               "cmd: ./p 3\n"
                               "pid: 7\n"
                               "events: Ir Dr\n"
                               "ob 1 /bin/p\n"
                               "fl 1 a.c\n"
                               "fl 2 b.c\n"
                               "fl 3 m.c\n"
                               "fn 1 1 3 main\n"
                               "fn 2 1 1 helper\n"
                               "fn 3 1 2 helper\n"
                               "fn 4 0 0 0x1000\n"
                               "x 1 0 1 1 10 1\n"
                               "x 2 1 2 3 30 3\n"
                               "x 3 1 3 2 20 2\n"
                               "x 4 1 4 1 5\n"
                               "totals: 65 6\n";

/* main: 6 + 4 (inl.h); helper of a.c: 30; of b.c: 15, and 5 from x.h */
static const char cg_fmt[] = "# callgrind format\n"
                             "version: 1\n"
                             "pid: %d\n"
                             "cmd: %s\n"
                             "events: Ir Dr\n"
                             "ob=/bin/p\n"
                             "fl=m.c\n"
                             "fn=main\n"
                             "1 6 1\n"
                             "cfl=a.c\n"
                             "cfn=helper\n"
                             "calls=3 2\n"
                             "2 30 3\n"
                             "fl=inl.h\n"
                             "fn=main\n"
                             "5 %d 0\n"
                             "fl=a.c\n"
                             "fn=helper\n"
                             "2 30 3\n"
                             "fl=b.c\n"
                             "fn=helper\n"
                             "3 15 2\n"
                             "fl=x.h\n"
                             "fn=helper\n"
                             "4 5 0\n"
                             "ob=???\n"
                             "fl=???\n"
                             "fn=0x1000\n"
                             "0 5 0\n";

static struct profile *read_ctx(void)
{
    struct tally_error err;
    struct input in;
    tally_error_clear(&err);
    assert_int_equal(input_open_mem(&in, "p.ctx", ctx_text, strlen(ctx_text), &err), 0);
    struct profile *p = profile_new();
    p->path = xstrdup("p.ctx");
    p->format = PROFILE_FORMAT_CONTEXTS;
    if (contexts_read(&in, p, &err)) fail_msg("contexts: %s:%lu: %s", err.file, err.line, err.msg);
    input_close(&in);
    return p;
}

static struct profile *read_cgf(int pid, const char *cmd, int inl)
{
    char text[2048];
    snprintf(text, sizeof text, cg_fmt, pid, cmd, inl);
    struct read_options ro = {.merge_parts = 1};
    struct tally_error err;
    struct profile *p = test_read_string(text, &ro, &err);
    if (!p) fail_msg("callgrind: %s", err.msg);
    free(p->path);
    p->path = xstrdup("p.out");
    return p;
}

/* Self cost of event e summed over the functions named `name` with file `file` (NULL: any). */
static uint64_t self_of(const struct profile *p, const char *name, const char *file, size_t e)
{
    const struct part *pt = p->parts[0];
    uint64_t s = 0;
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec r;
        part_cost_get(pt, i, &r);
        struct function f = profile_function_at(p, r.fn);
        if (strcmp(profile_str(p, f.name), name) == 0 &&
            (!file || strcmp(profile_str(p, f.file), file) == 0))
            s += r.cost[e];
    }
    return s;
}

static size_t count_named(const struct profile *p, const char *name)
{
    size_t n = 0;
    for (uint32_t f = 0; f < profile_nfunctions(p); f++)
        if (strcmp(profile_str(p, profile_function_at(p, f).name), name) == 0) n++;
    return n;
}

static void test_match(void **state)
{
    (void)state;
    struct profile *ctx = read_ctx();
    struct profile *cg = read_cgf(7, "./p 3", 4);
    assert_int_equal(runpair_match(ctx, cg), 1);
    assert_int_equal(runpair_match(cg, ctx), 0); /* the contexts file comes first */
    assert_int_equal(runpair_match(ctx, ctx), 0);
    struct profile *other = read_cgf(8, "./p 3", 4);
    assert_int_equal(runpair_match(ctx, other), 0); /* another pid */
    profile_free(other);
    other = read_cgf(7, "./p 4", 4);
    assert_int_equal(runpair_match(ctx, other), 0); /* another command */
    profile_free(other);
    profile_free(ctx);
    profile_free(cg);
}

static void test_join(void **state)
{
    (void)state;
    struct profile *ctx = read_ctx();
    struct profile *cg = read_cgf(7, "./p 3", 4);
    struct tally_error err;
    tally_error_clear(&err);
    struct profile *j = runpair_join(ctx, cg, &err);
    if (!j) fail_msg("join: %s", err.msg);
    assert_non_null(j->cct);
    assert_int_equal(j->format, PROFILE_FORMAT_CALLGRIND);
    /* main of inl.h joined main of m.c: one main, its costs keep their files */
    assert_int_equal(count_named(j, "main"), 1);
    assert_int_equal(self_of(j, "main", "m.c", 0), 10);
    assert_int_equal(self_of(j, "main", "m.c", 1), 1);
    /* helper of x.h could be either helper: a function of its own */
    assert_int_equal(count_named(j, "helper"), 3);
    assert_int_equal(self_of(j, "helper", "a.c", 0), 30);
    assert_int_equal(self_of(j, "helper", "b.c", 0), 15);
    assert_int_equal(self_of(j, "helper", "x.h", 0), 5);
    /* unknown code: empty names in the contexts file, ??? in the callgrind file */
    assert_int_equal(count_named(j, "0x1000"), 1);
    assert_int_equal(self_of(j, "0x1000", "???", 0), 5);
    /* the tree: 4 contexts, main's children are the two helpers and 0x1000 */
    assert_int_equal(j->cct->n, 5);
    uint32_t fmain = j->cct->nodes[1].fn;
    assert_string_equal(profile_str(j, profile_function_at(j, fmain).name), "main");
    assert_int_equal(cct_self(j->cct, 1)[0], 10);
    assert_int_equal(cct_self(j->cct, 2)[0], 30);
    assert_int_equal(j->cct->nodes[2].calls, 3);
    /* the call arc of the callgrind file is there */
    assert_int_equal(part_ncalls(j->parts[0]), 1);
    profile_free(j);
    profile_free(ctx);
    profile_free(cg);
}

static void test_costs_differ(void **state)
{
    (void)state;
    struct profile *ctx = read_ctx();
    struct profile *cg = read_cgf(7, "./p 3", 5); /* main: 6 + 5 */
    assert_int_equal(runpair_match(ctx, cg), 1);
    struct tally_error err;
    tally_error_clear(&err);
    assert_null(runpair_join(ctx, cg, &err));
    assert_non_null(strstr(err.msg, "main costs 10 Ir there and 11 here"));
    assert_non_null(strstr(err.msg, "not the contexts and callgrind files of one run"));
    assert_string_equal(err.file, "p.out");
    profile_free(ctx);
    profile_free(cg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_costs_differ),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
