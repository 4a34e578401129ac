/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_callgrind.c - the callgrind reader and writer.
 *
 * Every expected number below was worked out by hand from the input text.
 * With TALLY_CG_FILES=path:path:... (set by tests/cli/callgrind_roundtrip.sh)
 * the round-trip test also runs on those real files, and on their .gz/.zst
 * copies when present; TALLY_CG_OUTDIR=dir saves each rewritten file there.
 */
#include "testutil.h"

#include <inttypes.h>

/*
 * Read with the callgrind reader itself: many inputs here would look like
 * cachegrind files to format_detect(), which is not what is tested.
 */
static struct profile *read_cg(const char *text, const struct read_options *opt,
                               struct tally_error *err)
{
    static const struct read_options defaults;
    struct input in;
    tally_error_clear(err);
    assert_int_equal(input_open_mem(&in, "test", text, strlen(text), err), 0);
    struct profile *p = profile_new();
    p->path = xstrdup("test");
    int rc = callgrind_read(&in, p, opt ? opt : &defaults, err);
    input_close(&in);
    if (!rc && opt && opt->merge_parts) rc = profile_merge_parts(p, err);
    if (rc) {
        profile_free(p);
        return NULL;
    }
    return p;
}

static struct profile *rd_opt(const char *text, const struct read_options *opt)
{
    struct tally_error err;
    struct profile *p = read_cg(text, opt, &err);
    if (!p) fail_msg("unexpected error: %s:%lu: %s", err.file, err.line, err.msg);
    return p;
}

static struct profile *rd(const char *text)
{
    return rd_opt(text, NULL);
}

/* The read must fail on `line` with a message containing `part`. */
static void rd_err(const char *text, unsigned long line, const char *part)
{
    struct tally_error err;
    struct profile *p = read_cg(text, NULL, &err);
    if (p) {
        profile_free(p);
        fail_msg("no error, expected line %lu: %s", line, part);
    }
    if (err.line != line || !strstr(err.msg, part))
        fail_msg("got line %lu '%s', expected line %lu with '%s'", err.line, err.msg, line, part);
    assert_string_equal(err.file, "test");
}

/* rd_err() with read options. */
static void rd_err_opt(const char *text, const struct read_options *opt, unsigned long line,
                       const char *part)
{
    struct tally_error err;
    struct profile *p = read_cg(text, opt, &err);
    if (p) {
        profile_free(p);
        fail_msg("no error, expected line %lu: %s", line, part);
    }
    if (err.line != line || !strstr(err.msg, part))
        fail_msg("got line %lu '%s', expected line %lu with '%s'", err.line, err.msg, line, part);
}

static uint32_t name_id(struct profile *p, const char *s)
{
    uint32_t id = strtab_find(&p->names, s, strlen(s));
    if (id == UINT32_MAX) fail_msg("no name '%s'", s);
    return id;
}

/* Index of function (obj, file, name), which must exist. */
static uint32_t fn_of(struct profile *p, const char *obj, const char *file, const char *name)
{
    uint32_t o = name_id(p, obj), f = name_id(p, file), n = name_id(p, name);
    for (size_t i = 0; i < profile_nfunctions(p); i++) {
        struct function fu = profile_function_at(p, (uint32_t)i);
        if (fu.obj == o && fu.file == f && fu.name == n) return (uint32_t)i;
    }
    fail_msg("no function %s/%s/%s", obj, file, name);
    return 0;
}

/* Cost vector of fn at (file, line, addr) in part k, or NULL. */
static uint64_t *cost_at(struct profile *p, size_t k, uint32_t fn, const char *file, uint64_t line,
                         uint64_t addr)
{
    struct part *pt = p->parts[k];
    uint32_t f = name_id(p, file);
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec c;
        part_cost_get(pt, i, &c);
        if (c.fn == fn && c.pos.file == f && c.pos.line == line && c.pos.addr == addr)
            return c.cost;
    }
    return NULL;
}

static int call_find(struct profile *p, size_t k, uint32_t caller, uint32_t callee,
                     struct call_rec *out)
{
    struct part *pt = p->parts[k];
    for (size_t i = 0; i < part_ncalls(pt); i++) {
        part_call_get(pt, i, out);
        if (out->caller == caller && out->callee == callee) return 1;
    }
    return 0;
}

static void expect_costs(const uint64_t *c, size_t n, const uint64_t *want)
{
    assert_non_null(c);
    for (size_t i = 0; i < n; i++)
        if (c[i] != want[i])
            fail_msg("cost %zu is %" PRIu64 ", expected %" PRIu64, i, c[i], want[i]);
}

/* ---------------------------------------------------------------------- */

static const char basic[] = "# callgrind format\n"
                            "version: 1\n"
                            "creator: hand-made 1.0\n"
                            "pid: 4242\n"
                            "cmd:   ./prog --flag\n"
                            "part: 3\n"
                            "thread: 2\n"
                            "desc: I1 cache: 32768 B\n"
                            "desc: Trigger: Program termination\n"
                            "positions: line\n"
                            "events: Ir Dr\n"
                            "summary: 25 4\n"
                            "\n"
                            "# a comment in the body\n"
                            "ob=/bin/prog\n"
                            "fl=prog.c\n"
                            "fn=main\n"
                            "10 5 1\n"
                            "11 0x10\n"
                            "10 2 3\n"
                            "\n"
                            "fn=helper\n"
                            "20 2\n"
                            "totals: 25 4\n";

static void test_basic(void **state)
{
    struct profile *p = rd(basic);
    assert_int_equal(p->nparts, 1);
    assert_int_equal(p->version, 1);
    assert_string_equal(p->creator, "hand-made 1.0");
    struct part *pt = p->parts[0];
    assert_true(pt->has_pid && pt->has_part && pt->has_thread);
    assert_int_equal(pt->pid, 4242);
    assert_int_equal(pt->part_no, 3);
    assert_int_equal(pt->thread, 2);
    assert_string_equal(pt->cmd, "./prog --flag");
    assert_int_equal(pt->desc.n, 2);
    assert_string_equal(pt->desc.items[0], "I1 cache: 32768 B");
    assert_int_equal(pt->positions, POS_LINE);
    assert_int_equal(pt->events.n, 2);
    assert_string_equal(pt->events.names[1], "Dr");
    assert_non_null(pt->summary);
    assert_int_equal(pt->summary[0], 25);
    assert_int_equal(pt->totals[1], 4);
    assert_int_equal(pt->summary_line, 12);
    assert_int_equal(pt->totals_line, 24);
    uint32_t m = fn_of(p, "/bin/prog", "prog.c", "main");
    uint32_t h = fn_of(p, "/bin/prog", "prog.c", "helper");
    /* line 10 twice: 5+2, 1+3; line 11: hex 0x10 = 16, missing Dr = 0 */
    expect_costs(cost_at(p, 0, m, "prog.c", 10, 0), 2, (uint64_t[]){7, 4});
    expect_costs(cost_at(p, 0, m, "prog.c", 11, 0), 2, (uint64_t[]){16, 0});
    expect_costs(cost_at(p, 0, h, "prog.c", 20, 0), 2, (uint64_t[]){2, 0});
    assert_int_equal(part_ncosts(pt), 3);
    assert_int_equal(p->warnings.n, 0); /* Ir 7+16+2 = 25, Dr 4+0+0 = 4 */
    profile_free(p);
}

static void test_totals_warning(void **state)
{
    struct profile *p = rd("events: A B\nsummary: 7 1\nfn=f\n1 4 1\n2 4\ntotals: 8 2\n");
    /* sums: A = 8, B = 1; summary A below the sum (7), totals B wrong (2) */
    assert_int_equal(p->warnings.n, 2);
    assert_non_null(strstr(p->warnings.items[0], "test:2: 'summary:' line gives A = 7"));
    assert_non_null(strstr(p->warnings.items[0], "add up to 8"));
    assert_non_null(strstr(p->warnings.items[1], "test:6: 'totals:' line gives B = 2"));
    profile_free(p);
    /* a summary above the sum is allowed by the format (Callgrind writes one) */
    p = rd("events: A B\nsummary: 10 1\nfn=f\n1 4 1\n2 4\ntotals: 8 1\n");
    assert_int_equal(p->warnings.n, 0);
    profile_free(p);
    /* without totals: (xdebug, pyprof2calltree) a summary is not a sum of the lines */
    p = rd("events: A B\nsummary: 7 1\nfn=f\n1 4 1\n2 4\n");
    assert_int_equal(p->warnings.n, 0);
    profile_free(p);
    /* --cacheuse=yes: Callgrind's summary has 0 (or nothing) for its use
     * events, whatever the lines hold; another event at 0 is still wrong */
    p = rd("events: Ir AcCost1 SpLoss1 AcCost2 SpLoss2\nsummary: 2\nfn=f\n1 2 500 58 1000 "
           "12\ntotals: 2 500 58 1000 12\n");
    assert_int_equal(p->warnings.n, 0);
    profile_free(p);
    p = rd("events: Ir AcCost1 Bc\nsummary: 2 0 0\nfn=f\n1 2 500 3\ntotals: 2 500 3\n");
    assert_int_equal(p->warnings.n, 1);
    assert_non_null(strstr(p->warnings.items[0], "'summary:' line gives Bc = 0"));
    profile_free(p);
    /* but totals must be exact in either direction */
    p = rd("events: A\nfn=f\n1 4\ntotals: 5\n");
    assert_int_equal(p->warnings.n, 1);
    assert_non_null(strstr(p->warnings.items[0], "'totals:' line gives A = 5"));
    profile_free(p);
}

/* desc: values are kept as written, trailing blanks included; names are trimmed */
static void test_desc_verbatim(void **state)
{
    struct profile *p = rd("desc: I1 cache: \ndesc:   Trigger: end  \r\nevents: Ir\nfn=f  \n1 2\n");
    assert_int_equal(p->parts[0]->desc.n, 2);
    assert_string_equal(p->parts[0]->desc.items[0], "I1 cache: ");
    assert_string_equal(p->parts[0]->desc.items[1], "Trigger: end  ");
    struct function f = profile_function_at(p, 0);
    assert_string_equal(profile_str(p, f.name), "f");
    profile_free(p);
}

static void test_names(void **state)
{
    /* the same id 1 in the three id spaces names different things */
    struct profile *p = rd("events: Ir\n"
                           "ob=(1) libA.so\n"
                           "fl=(1) a.c\n"
                           "fn=(1) f\n"
                           "1 1\n"
                           "fn=(4000000000) g\n"
                           "2 2\n"
                           "fn=(1)\n"
                           "3 4\n"
                           "fl=(2) ???\n"
                           "fn=(4000000000)\n"
                           "4 8\n"
                           "fn=(1) f2\n" /* redefinition: replaces */
                           "5 16\n"
                           "fn=(1)\n"
                           "6 32\n"
                           "fn=(anonymous namespace)::h\n"
                           "7 64\n");
    uint32_t f = fn_of(p, "libA.so", "a.c", "f");
    uint32_t g = fn_of(p, "libA.so", "a.c", "g");
    uint32_t g2 = fn_of(p, "libA.so", "???", "g");
    uint32_t f2 = fn_of(p, "libA.so", "???", "f2");
    uint32_t h = fn_of(p, "libA.so", "???", "(anonymous namespace)::h");
    expect_costs(cost_at(p, 0, f, "a.c", 1, 0), 1, (uint64_t[]){1});
    expect_costs(cost_at(p, 0, g, "a.c", 2, 0), 1, (uint64_t[]){2});
    expect_costs(cost_at(p, 0, f, "a.c", 3, 0), 1, (uint64_t[]){4});
    expect_costs(cost_at(p, 0, g2, "???", 4, 0), 1, (uint64_t[]){8});
    expect_costs(cost_at(p, 0, f2, "???", 5, 0), 1, (uint64_t[]){16});
    expect_costs(cost_at(p, 0, f2, "???", 6, 0), 1, (uint64_t[]){32});
    expect_costs(cost_at(p, 0, h, "???", 7, 0), 1, (uint64_t[]){64});
    profile_free(p);
}

static void test_positions(void **state)
{
    struct profile *p = rd("positions: instr line\n"
                           "events: Ir\n"
                           "fl=a.c\n"
                           "fn=f\n"
                           "0x100 10 1\n" /* 0x100, 10 */
                           "+4 +2 2\n"    /* 0x104, 12 */
                           "* -1 3\n"     /* 0x104, 11 */
                           "-2 * 4\n"     /* 0x102, 11 */
                           "cfn=g\n"
                           "calls=1 +0x50 -5\n" /* target 0x152, 6; does not move */
                           "+1 * 100\n"         /* site 0x103, 11 */
                           "* * 5\n"            /* self again at 0x103, 11 */
                           "0X200 7 6\n");      /* absolute, uppercase X */
    uint32_t f = fn_of(p, "", "a.c", "f");
    uint32_t g = fn_of(p, "", "a.c", "g");
    expect_costs(cost_at(p, 0, f, "a.c", 10, 0x100), 1, (uint64_t[]){1});
    expect_costs(cost_at(p, 0, f, "a.c", 12, 0x104), 1, (uint64_t[]){2});
    expect_costs(cost_at(p, 0, f, "a.c", 11, 0x104), 1, (uint64_t[]){3});
    expect_costs(cost_at(p, 0, f, "a.c", 11, 0x102), 1, (uint64_t[]){4});
    expect_costs(cost_at(p, 0, f, "a.c", 11, 0x103), 1, (uint64_t[]){5});
    expect_costs(cost_at(p, 0, f, "a.c", 7, 0x200), 1, (uint64_t[]){6});
    struct call_rec c;
    assert_true(call_find(p, 0, f, g, &c));
    assert_int_equal(c.target.addr, 0x152);
    assert_int_equal(c.target.line, 6);
    assert_int_equal(c.site.addr, 0x103);
    assert_int_equal(c.site.line, 11);
    assert_int_equal(*c.count, 1);
    assert_int_equal(c.cost[0], 100);
    assert_int_equal(p->parts[0]->positions, POS_INSTR | POS_LINE);
    profile_free(p);
}

static void test_bb_positions(void **state)
{
    struct profile *p = rd("positions: instr bb line\nevents: Ir\nfn=f\n"
                           "0x10 0x8 3 1\n+1 * +1 2\n");
    uint32_t f = fn_of(p, "", "", "f");
    struct part *pt = p->parts[0];
    assert_int_equal(pt->positions, POS_INSTR | POS_BB | POS_LINE);
    assert_int_equal(part_ncosts(pt), 2);
    struct cost_rec c;
    part_cost_get(pt, 1, &c);
    assert_int_equal(c.fn, f);
    assert_int_equal(c.pos.addr, 0x11);
    assert_int_equal(c.pos.bb, 8);
    assert_int_equal(c.pos.line, 4);
    assert_int_equal(c.cost[0], 2);
    profile_free(p);
}

static void test_calls(void **state)
{
    struct profile *p = rd("events: Ir Dr\n"
                           "ob=main.exe\n"
                           "fl=m.c\n"
                           "fn=main\n"
                           "5 1\n"
                           "cob=libc.so\n"
                           "cfi=s.c\n"
                           "cfn=strlen\n"
                           "calls=3 100\n"
                           "6 30 9\n"
                           "cfn=local\n" /* cob/cfi were reset: main.exe, m.c */
                           "calls=2 40\n"
                           "7 20\n"
                           "cfl=o.c\n" /* cfl= is a synonym of cfi= */
                           "cfn=other\n"
                           "calls=1 1\n"
                           "8 4 4\n"
                           "cfn=local\n"
                           "calls=1 40\n"
                           "7 5\n" /* same arc again: counts and costs add */
                           "8 9\n");
    uint32_t m = fn_of(p, "main.exe", "m.c", "main");
    uint32_t s = fn_of(p, "libc.so", "s.c", "strlen");
    uint32_t l = fn_of(p, "main.exe", "m.c", "local");
    uint32_t o = fn_of(p, "main.exe", "o.c", "other");
    struct call_rec c;
    assert_true(call_find(p, 0, m, s, &c));
    assert_int_equal(*c.count, 3);
    assert_int_equal(c.site.line, 6);
    assert_int_equal(c.target.line, 100);
    assert_int_equal(c.target.file, name_id(p, "s.c"));
    assert_int_equal(c.cost[0], 30);
    assert_int_equal(c.cost[1], 9);
    assert_true(call_find(p, 0, m, l, &c));
    assert_int_equal(*c.count, 3);
    assert_int_equal(c.cost[0], 25);
    assert_int_equal(c.cost[1], 0);
    assert_true(call_find(p, 0, m, o, &c));
    assert_int_equal(c.cost[1], 4);
    /* call costs are not self costs */
    expect_costs(cost_at(p, 0, m, "m.c", 5, 0), 2, (uint64_t[]){1, 0});
    expect_costs(cost_at(p, 0, m, "m.c", 8, 0), 2, (uint64_t[]){9, 0});
    assert_null(cost_at(p, 0, m, "m.c", 6, 0));
    assert_int_equal(part_ncalls(p->parts[0]), 3);
    profile_free(p);
}

/* fi=/fe= move the cost position, not the function; callees default to the current file */
static void test_inline_files(void **state)
{
    struct profile *p = rd("events: Ir\n"
                           "fl=(1) main.c\n"
                           "fn=(1) f\n"
                           "1 1\n"
                           "fi=(2) inl.h\n"
                           "2 2\n"
                           "cfn=(2) g\n"
                           "calls=1 9\n"
                           "2 7\n"
                           "fe=(1)\n"
                           "3 4\n"
                           "fi=(2)\n"
                           "fn=(3) h\n" /* fn= goes back to the fl= file */
                           "4 8\n");
    uint32_t f = fn_of(p, "", "main.c", "f");
    uint32_t g = fn_of(p, "", "inl.h", "g");
    uint32_t h = fn_of(p, "", "main.c", "h");
    expect_costs(cost_at(p, 0, f, "main.c", 1, 0), 1, (uint64_t[]){1});
    expect_costs(cost_at(p, 0, f, "inl.h", 2, 0), 1, (uint64_t[]){2});
    expect_costs(cost_at(p, 0, f, "main.c", 3, 0), 1, (uint64_t[]){4});
    expect_costs(cost_at(p, 0, h, "main.c", 4, 0), 1, (uint64_t[]){8});
    struct call_rec c;
    assert_true(call_find(p, 0, f, g, &c));
    assert_int_equal(c.site.file, name_id(p, "inl.h"));
    profile_free(p);
}

static void test_jumps(void **state)
{
    const char *text = "positions: instr line\n"
                       "events: Ir\n"
                       "fl=(1) a.c\n"
                       "fn=(1) f\n"
                       "0x10 5 3\n"
                       "jcnd=9/10 +8 +2\n" /* taken 9 of 10; target 0x18, 7 */
                       "+2 *\n"            /* source 0x12, 5: no cost record */
                       "jump=4 -2 -1\n"    /* target 0x10, 4 (relative to 0x12, 5) */
                       "* +1\n"            /* source 0x12, 6 */
                       "jcnd=10 3 +1 *\n"  /* the spec's form: executed 10, taken 3 */
                       "+1 *\n"            /* source 0x13, 6 */
                       "jfi=(2) b.c\n"
                       "jfn=(2) g\n"
                       "jump=1 0x40 1\n"
                       "* *\n"
                       "jump=2 0x50 2\n" /* jfi/jfn were reset */
                       "* *\n"
                       "+1 * 1\n";
    struct profile *p = rd(text);
    struct part *pt = p->parts[0];
    uint32_t f = fn_of(p, "", "a.c", "f");
    uint32_t g = fn_of(p, "", "b.c", "g");
    assert_int_equal(part_ncosts(pt), 2); /* 0x10 and 0x14: jump sources are not costs */
    expect_costs(cost_at(p, 0, f, "a.c", 6, 0x14), 1, (uint64_t[]){1});
    assert_int_equal(part_njumps(pt), 5);
    struct jump_rec j;
    part_jump_get(pt, 0, &j);
    assert_true(j.conditional);
    assert_int_equal(*j.taken, 9);
    assert_int_equal(*j.executed, 10);
    assert_int_equal(j.src.addr, 0x12);
    assert_int_equal(j.src.line, 5);
    assert_int_equal(j.target.addr, 0x18);
    assert_int_equal(j.target.line, 7);
    assert_int_equal(j.target_fn, f);
    part_jump_get(pt, 1, &j);
    assert_false(j.conditional);
    assert_int_equal(*j.taken, 4);
    assert_int_equal(*j.executed, 4);
    assert_int_equal(j.target.addr, 0x10);
    assert_int_equal(j.target.line, 4);
    assert_int_equal(j.src.line, 6);
    part_jump_get(pt, 2, &j);
    assert_true(j.conditional);
    assert_int_equal(*j.executed, 10);
    assert_int_equal(*j.taken, 3);
    assert_int_equal(j.target.addr, 0x13);
    part_jump_get(pt, 3, &j);
    assert_int_equal(j.target_fn, g);
    assert_int_equal(j.target.file, name_id(p, "b.c"));
    assert_int_equal(j.target.addr, 0x40);
    part_jump_get(pt, 4, &j);
    assert_int_equal(j.target_fn, f);
    assert_int_equal(j.target.file, name_id(p, "a.c"));
    profile_free(p);

    struct read_options opt = {.drop_jumps = 1};
    p = rd_opt(text, &opt);
    assert_int_equal(part_njumps(p->parts[0]), 0);
    /* the jumps' source lines stay lines of the function: records of no cost */
    assert_int_equal(part_ncosts(p->parts[0]), 5);
    f = fn_of(p, "", "a.c", "f");
    expect_costs(cost_at(p, 0, f, "a.c", 5, 0x12), 1, (uint64_t[]){0});
    expect_costs(cost_at(p, 0, f, "a.c", 6, 0x13), 1, (uint64_t[]){0});
    expect_costs(cost_at(p, 0, f, "a.c", 6, 0x14), 1, (uint64_t[]){1});
    profile_free(p);
}

static void test_drop_addr(void **state)
{
    struct read_options opt = {.drop_addr = 1};
    struct profile *p = rd_opt("positions: instr line\nevents: Ir\nfn=f\n"
                               "0x10 5 1\n+2 * 2\n+2 +1 4\ncfn=g\ncalls=1 0x99 1\n+1 * 8\n",
                               &opt);
    struct part *pt = p->parts[0];
    uint32_t f = fn_of(p, "", "", "f");
    assert_int_equal(part_ncosts(pt), 2);
    expect_costs(cost_at(p, 0, f, "", 5, 0), 1, (uint64_t[]){3});
    expect_costs(cost_at(p, 0, f, "", 6, 0), 1, (uint64_t[]){4});
    struct call_rec c;
    assert_true(call_find(p, 0, f, fn_of(p, "", "", "g"), &c));
    assert_int_equal(c.site.addr, 0);
    assert_int_equal(c.target.addr, 0);
    assert_int_equal(c.site.line, 6);
    profile_free(p);
}

/*
 * A part without `totals:` in a file whose producer always writes it
 * (creator Callgrind or tally, or `totals:` in another part) was cut
 * short: one warning naming the file. Other producers' files (xdebug,
 * pprof -callgrind) may have none at all: no warning.
 */
static void test_truncated(void **state)
{
    (void)state;
    static const char *const cut[] = {
        "# callgrind format\ncreator: callgrind-3.19.0\nevents: Ir\nfn=f\n1 10\n",
        "# callgrind format\ncreator: tally-record 0.1\nevents: Ir\nfn=f\n1 10\n",
        "events: Ir\nfn=f\n1 10\ntotals: 10\npart: 2\nevents: Ir\nfn=f\n1 3\n",
    };
    static const char *const whole[] = {
        "# callgrind format\ncreator: callgrind-3.19.0\nevents: Ir\nfn=f\n1 10\ntotals: 10\n",
        "# callgrind format\ncreator: xdebug 3.2\nevents: Time\nfn=f\n1 10\n",
        "events: Ir\nfn=f\n1 10\npart: 2\nevents: Ir\nfn=f\n1 3\n",
    };
    for (size_t i = 0; i < 3; i++) {
        struct profile *p = rd(cut[i]);
        assert_int_equal(p->warnings.n, 1);
        assert_non_null(strstr(p->warnings.items[0], "test: "));
        assert_non_null(strstr(p->warnings.items[0], "'totals:'"));
        assert_non_null(strstr(p->warnings.items[0], "truncated"));
        if (i == 2) assert_non_null(strstr(p->warnings.items[0], "part 2 of 2"));
        profile_free(p);
        p = rd(whole[i]);
        assert_int_equal(p->warnings.n, 0);
        profile_free(p);
    }
}

static void test_parts(void **state)
{
    struct profile *p = rd("# callgrind format\n"
                           "version: 1\n"
                           "pid: 7\n"
                           "cmd: ./t\n"
                           "part: 1\n"
                           "positions: line\n"
                           "events: Ir\n"
                           "fl=(1) a.c\n"
                           "fn=(1) f\n"
                           "1 10\n"
                           "totals: 10\n"
                           "\n"
                           "part: 2\n"
                           "desc: Trigger: dump\n"
                           "positions: instr line\n"
                           "events: Ir Dr\n"
                           "fl=(1)\n" /* ids live across parts */
                           "fn=(1)\n"
                           "0x4 2 20 1\n"
                           "totals: 20 1\n"
                           "pid: 8\n"
                           "events: X\n"
                           "fl=(1)\n"
                           "fn=(1)\n"
                           "3 5\n"
                           "totals: 5\n");
    assert_int_equal(p->nparts, 3);
    struct part *a = p->parts[0], *b = p->parts[1], *c = p->parts[2];
    assert_int_equal(a->part_no, 1);
    assert_int_equal(b->part_no, 2);
    assert_true(b->has_pid); /* inherited from the first part */
    assert_int_equal(b->pid, 7);
    assert_string_equal(b->cmd, "./t");
    assert_int_equal(b->desc.n, 1);
    assert_int_equal(a->desc.n, 0);
    assert_int_equal(b->positions, POS_INSTR | POS_LINE);
    assert_int_equal(c->pid, 8);
    assert_int_equal(c->positions, POS_LINE);
    uint32_t f = fn_of(p, "", "a.c", "f");
    expect_costs(cost_at(p, 0, f, "a.c", 1, 0), 1, (uint64_t[]){10});
    expect_costs(cost_at(p, 1, f, "a.c", 2, 4), 2, (uint64_t[]){20, 1});
    expect_costs(cost_at(p, 2, f, "a.c", 3, 0), 1, (uint64_t[]){5});
    assert_int_equal(p->warnings.n, 0);
    profile_free(p);

    struct read_options opt = {.merge_parts = 1};
    p = rd_opt("events: Ir\nfn=f\n1 1\npart: 2\nevents: Ir\nfn=f\n1 2\n", &opt);
    assert_int_equal(p->nparts, 1);
    expect_costs(cost_at(p, 0, fn_of(p, "", "", "f"), "", 1, 0), 1, (uint64_t[]){3});
    profile_free(p);
}

/* Part 0 of a and b hold the same records in the same order. */
static void expect_same_part(const struct profile *a, const struct profile *b)
{
    const struct part *x = a->parts[0], *y = b->parts[0];
    size_t n = x->events.n;
    assert_int_equal(n, y->events.n);
    assert_int_equal(part_ncosts(x), part_ncosts(y));
    assert_int_equal(part_ncalls(x), part_ncalls(y));
    for (size_t i = 0; i < part_ncosts(x); i++) {
        struct cost_rec c, d;
        part_cost_get(x, i, &c);
        part_cost_get(y, i, &d);
        assert_int_equal(c.fn, d.fn);
        assert_int_equal(c.pos.line, d.pos.line);
        assert_int_equal(c.pos.file, d.pos.file);
        assert_memory_equal(c.cost, d.cost, n * sizeof(uint64_t));
    }
    for (size_t i = 0; i < part_ncalls(x); i++) {
        struct call_rec c, d;
        part_call_get(x, i, &c);
        part_call_get(y, i, &d);
        assert_int_equal(c.caller, d.caller);
        assert_int_equal(c.callee, d.callee);
        assert_int_equal(c.site.line, d.site.line);
        assert_int_equal(*c.count, *d.count);
        assert_memory_equal(c.cost, d.cost, n * sizeof(uint64_t));
    }
    assert_int_equal(x->totals != NULL, y->totals != NULL);
    if (x->totals) assert_memory_equal(x->totals, y->totals, n * sizeof(uint64_t));
    assert_int_equal(a->warnings.n, b->warnings.n);
    for (size_t i = 0; i < a->warnings.n; i++)
        assert_string_equal(a->warnings.items[i], b->warnings.items[i]);
}

/*
 * merge_parts folds each part into part 0 as it ends: the result is that of
 * reading every part and folding them afterwards (profile_merge_parts()),
 * records, totals and warnings, also for a part without totals: (the
 * truncation warning still counts the parts).
 */
static void test_parts_folded_while_reading(void **state)
{
    const char *texts[] = {
        "creator: callgrind-3.19.0\nevents: Ir Dr\nfn=(1) f\n1 1 2\n2 3\ncfn=(2) g\ncalls=2 5\n"
        "2 10 1\nfn=(2)\n5 10 1\ntotals: 24 4\n"
        "part: 2\nevents: Ir Dr\nfn=(2)\n5 7\nfn=(3) h\n9 1 1\ntotals: 8 1\n"
        "part: 3\nevents: Dr Ir\nfn=(1)\n1 4 4\n3 1 1\ncfn=(3)\ncalls=1 9\n3 2 2\ntotals: 7 7\n"
        "part: 4\nevents: Ir Dr\nfn=(3)\n9 100 0\n",
        "creator: callgrind-3.19.0\nevents: Ir\nfn=f\n1 1\ntotals: 1\npart: 2\nevents: Ir\nfn=g\n"
        "2 2\npart: 3\nevents: Ir\nfn=f\n1 3\ntotals: 3\n",
    };
    for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
        struct read_options fold = {.merge_parts = 1};
        struct tally_error err;
        struct profile *a = profile_new();
        struct input in;
        assert_int_equal(input_open_mem(&in, "test", texts[t], strlen(texts[t]), &err), 0);
        a->path = xstrdup("test");
        assert_int_equal(callgrind_read(&in, a, &fold, &err), 0);
        input_close(&in);
        assert_int_equal(a->nparts, 1); /* folded by the reader itself */
        struct profile *b = rd(texts[t]);
        assert_true(b->nparts > 1);
        assert_int_equal(profile_merge_parts(b, &err), 0);
        expect_same_part(a, b);
        profile_free(a);
        profile_free(b);
    }
}

static void test_derived_events(void **state)
{
    struct profile *p = rd("event: Ir : Instruction Fetch\n"
                           "event: Sum = Ir + 2 Dr : Weighted\n"
                           "events: Ir Dr\n"
                           "fn=f\n1 3 4\n");
    struct eventset *es = &p->parts[0]->events;
    assert_string_equal(es->long_names[0], "Instruction Fetch");
    assert_null(es->long_names[1]);
    assert_int_equal(es->nderived, 1);
    struct event_expr e;
    assert_int_equal(eventset_lookup(es, "Sum", &e), 0);
    tally_wide v;
    uint64_t *c = cost_at(p, 0, fn_of(p, "", "", "f"), "", 1, 0);
    assert_int_equal(event_expr_eval(&e, c, 0, &v), 0);
    assert_int_equal(v, 11); /* 3 + 2*4 */
    event_expr_release(&e);
    profile_free(p);

    /* the format leaves the order of event: and events: free: the same
       definitions after the events: line (still in the header) */
    p = rd("events: Ir Dr\n"
           "event: Ir : Instruction Fetch\n"
           "event: Sum = Ir + 2 Dr : Weighted\n"
           "fn=f\n1 3 4\n");
    es = &p->parts[0]->events;
    assert_int_equal(p->nparts, 1);
    assert_string_equal(es->long_names[0], "Instruction Fetch");
    assert_int_equal(eventset_lookup(es, "Sum", &e), 0);
    c = cost_at(p, 0, fn_of(p, "", "", "f"), "", 1, 0);
    assert_int_equal(event_expr_eval(&e, c, 0, &v), 0);
    assert_int_equal(v, 11);
    event_expr_release(&e);
    profile_free(p);
}

static void test_crlf_blank_comments(void **state)
{
    struct profile *p = rd("# callgrind format\r\nevents: Ir\r\n\r\n# c\r\nfn=f\r\n"
                           "1 2  \r\n   \r\n2\t3\r\nsummary: 5\r\n");
    uint32_t f = fn_of(p, "", "", "f");
    expect_costs(cost_at(p, 0, f, "", 1, 0), 1, (uint64_t[]){2});
    expect_costs(cost_at(p, 0, f, "", 2, 0), 1, (uint64_t[]){3});
    assert_int_equal(p->warnings.n, 0);
    profile_free(p);
    /* no newline at the end of the file */
    p = rd("events: Ir\nfn=f\n7 0x20");
    expect_costs(cost_at(p, 0, fn_of(p, "", "", "f"), "", 7, 0), 1, (uint64_t[]){32});
    profile_free(p);
}

static void test_negative_costs(void **state)
{
    (void)state;
    /* negative counts make the profile signed, as callgrind_annotate adds them */
    struct profile *p = rd("events: Time Memory\nfn=f\n1 5 -100\n2 -3 7\n1 0 -1\nsummary: 2 -94\n");
    assert_true(p->signed_costs);
    uint32_t f = fn_of(p, "", "", "f");
    expect_costs(cost_at(p, 0, f, "", 1, 0), 2, (uint64_t[]){5, (uint64_t)-101});
    expect_costs(cost_at(p, 0, f, "", 2, 0), 2, (uint64_t[]){(uint64_t)-3, 7});
    assert_int_equal((int64_t)p->parts[0]->summary[1], -94);
    assert_int_equal(p->warnings.n, 0); /* the summary matches */
    profile_free(p);
    /* counts read before the first negative one must fit in 63 bits */
    rd_err("events: A\nfn=f\n1 9223372036854775808\n2 -1\n", 4,
           "a count above 2^63-1 cannot be mixed with negative counts");
    rd_err("events: A B\nfn=f\n1 -1 9223372036854775808\n", 3,
           "cost does not fit in a signed 64-bit count");
    rd_err("events: A\nfn=f\n1 -1\n2 -9223372036854775809\n", 4,
           "cost does not fit in a signed 64-bit count");
    p = rd("events: A\nfn=f\n1 -9223372036854775808\n");
    expect_costs(cost_at(p, 0, fn_of(p, "", "", "f"), "", 1, 0), 1, (uint64_t[]){1ULL << 63});
    profile_free(p);
    /* a sum past the signed range is refused */
    rd_err("events: A\nfn=f\n1 -1\n2 9223372036854775807\n2 1\n", 5,
           "costs overflow 64 bits when added up");
    /* a negative total alone makes it signed too */
    p = rd("events: A\nfn=f\n1 3\ntotals: -2\n");
    assert_true(p->signed_costs);
    assert_int_equal(p->warnings.n, 1);
    profile_free(p);
}

/* xdebug 2/3 output, as written by xdebug's profiler (reconstructed by hand). */
static const char xdebug[] = "version: 1\n"
                             "creator: xdebug 3.2.1 (PHP 8.2.7)\n"
                             "cmd: /var/www/index.php\n"
                             "part: 1\n"
                             "positions: line\n"
                             "\n"
                             "events: Time_(10ns) Memory_(bytes)\n"
                             "\n"
                             "fl=(1) php:internal\n"
                             "fn=(1) php::strlen\n"
                             "3 12 0\n"
                             "\n"
                             "fl=(2) /var/www/index.php\n"
                             "fn=(2) helper\n"
                             "2 30 -64\n"
                             "cfl=(1)\n"
                             "cfn=(1)\n"
                             "calls=1 0 0\n"
                             "3 12 0\n"
                             "\n"
                             "fl=(2)\n"
                             "fn=(3) {main}\n"
                             "\n"
                             "summary: 100 2048\n"
                             "\n"
                             "0 58 2048\n"
                             "cfl=(2)\n"
                             "cfn=(2)\n"
                             "calls=1 0 0\n"
                             "5 42 -64\n"
                             "==== NEW PROFILING FILE ==============================\n"
                             "version: 1\n"
                             "creator: xdebug 3.2.1 (PHP 8.2.7)\n"
                             "cmd: /var/www/other.php\n"
                             "part: 1\n"
                             "positions: line\n"
                             "events: Time_(10ns) Memory_(bytes)\n"
                             "fl=(3) /var/www/other.php\n"
                             "fn=(4) {main}\n"
                             "0 7 8\n";

static void test_xdebug(void **state)
{
    struct profile *p = rd(xdebug);
    assert_int_equal(p->nparts, 2);
    assert_string_equal(p->parts[0]->cmd, "/var/www/index.php");
    assert_string_equal(p->parts[1]->cmd, "/var/www/other.php");
    uint32_t s = fn_of(p, "", "php:internal", "php::strlen");
    uint32_t h = fn_of(p, "", "/var/www/index.php", "helper");
    uint32_t m = fn_of(p, "", "/var/www/index.php", "{main}");
    assert_true(p->signed_costs); /* xdebug's memory deltas may be negative */
    expect_costs(cost_at(p, 0, h, "/var/www/index.php", 2, 0), 2, (uint64_t[]){30, (uint64_t)-64});
    expect_costs(cost_at(p, 0, m, "/var/www/index.php", 0, 0), 2, (uint64_t[]){58, 2048});
    struct call_rec c;
    assert_true(call_find(p, 0, h, s, &c));
    assert_int_equal(c.site.line, 3);
    assert_int_equal(c.cost[0], 12);
    assert_true(call_find(p, 0, m, h, &c));
    assert_int_equal((int64_t)c.cost[1], -64);
    assert_int_equal(p->parts[0]->summary[0], 100);
    expect_costs(
        cost_at(p, 1, fn_of(p, "", "/var/www/other.php", "{main}"), "/var/www/other.php", 0, 0), 2,
        (uint64_t[]){7, 8});
    profile_free(p);
}

/* `pprof -callgrind` output (written by hand from its writer's documented layout). */
static const char pprof[] = "positions: instr line\n"
                            "events: cpu(ms)\n"
                            "\n"
                            "ob=\n"
                            "fl=(1) /src/main.go\n"
                            "fn=(1) main.work\n"
                            "0x4a0f20 12 30\n"
                            "cfl=(2) /usr/lib/go/src/runtime/malloc.go\n"
                            "cfn=(2) runtime.mallocgc\n"
                            "calls=0 0x40b100 905\n"
                            "* * 20\n"
                            "\n"
                            "ob=\n"
                            "fl=(2)\n"
                            "fn=(2)\n"
                            "-409632 905 20\n";

static void test_pprof(void **state)
{
    struct profile *p = rd(pprof);
    uint32_t w = fn_of(p, "", "/src/main.go", "main.work");
    uint32_t m = fn_of(p, "", "/usr/lib/go/src/runtime/malloc.go", "runtime.mallocgc");
    expect_costs(cost_at(p, 0, w, "/src/main.go", 12, 0x4a0f20), 1, (uint64_t[]){30});
    expect_costs(cost_at(p, 0, m, "/usr/lib/go/src/runtime/malloc.go", 905, 0x4a0f20 - 409632), 1,
                 (uint64_t[]){20});
    struct call_rec c;
    assert_true(call_find(p, 0, w, m, &c));
    assert_int_equal(*c.count, 0);
    assert_int_equal(c.cost[0], 20);
    assert_int_equal(c.target.addr, 0x40b100);
    assert_string_equal(p->parts[0]->events.names[0], "cpu(ms)");
    profile_free(p);
}

static void test_rcalls_and_unknown_header(void **state)
{
    struct profile *p = rd("arch: arm\nevents: Ir\nfn=f\ncfn=g\nrcalls=2 1\n1 3\n");
    struct call_rec c;
    assert_true(call_find(p, 0, fn_of(p, "", "", "f"), fn_of(p, "", "", "g"), &c));
    assert_int_equal(*c.count, 2);
    assert_int_equal(p->warnings.n, 2);
    assert_non_null(strstr(p->warnings.items[0], "unknown header line 'arch: arm'"));
    assert_non_null(strstr(p->warnings.items[1], "rcalls"));
    profile_free(p);
}

/* What other producers write, read as callgrind_annotate 3.19 reads it. */
static void test_producer_quirks(void **state)
{
    (void)state;
    /* xdebug 2's "version: 0.9.6": the leading number is the version */
    struct profile *p = rd("version: 0.9.6\ncmd: x\npart: 1\n\nevents: Time\nfn=f\n1 5\n");
    assert_int_equal(p->version, 0);
    assert_int_equal(p->warnings.n, 0);
    profile_free(p);
    /* no number at all: ignored with a warning */
    p = rd("version: abc\nevents: Ir\nfn=f\n1 5\n");
    assert_int_equal(p->warnings.n, 1);
    assert_non_null(strstr(p->warnings.items[0], ":1: ignoring 'version:' line without a number"));
    profile_free(p);
    /* an id never defined: named after itself, one warning per id, with its line */
    p = rd("events: Ir\nob=(1) a\nfl=(1) a.c\nfn=(1) main\n1 2\ncob=(8)\ncfn=(3)\n"
           "calls=1 2\n1 7\nfn=(3)\n2 7\nfl=(7)\nfn=(4) x\n3 1\nob=(8)\nfn=(4)\n4 1\n");
    assert_int_equal(p->warnings.n, 3);
    assert_non_null(
        strstr(p->warnings.items[0], ":6: undefined compressed object id (8): named '(8)'"));
    assert_non_null(
        strstr(p->warnings.items[1], ":7: undefined compressed function id (3): named '(3)'"));
    assert_non_null(
        strstr(p->warnings.items[2], ":12: undefined compressed file id (7): named '(7)'"));
    uint32_t cal = fn_of(p, "(8)", "a.c", "(3)"), g = fn_of(p, "a", "a.c", "(3)");
    struct call_rec c;
    assert_true(call_find(p, 0, fn_of(p, "a", "a.c", "main"), cal, &c));
    expect_costs(cost_at(p, 0, g, "a.c", 2, 0), 1, (uint64_t[]){7});
    expect_costs(cost_at(p, 0, fn_of(p, "(8)", "(7)", "x"), "(7)", 4, 0), 1, (uint64_t[]){1});
    profile_free(p);
    /* a cost line after fl= and before fn=: the function in force, in its file */
    p = rd("events: Ir\nfl=a.c\nfn=main\n1 10\nfl=b.c\n2 5\nfn=g\n3 1\n");
    uint32_t m = fn_of(p, "", "a.c", "main");
    expect_costs(cost_at(p, 0, m, "a.c", 2, 0), 1, (uint64_t[]){5});
    expect_costs(cost_at(p, 0, fn_of(p, "", "b.c", "g"), "b.c", 3, 0), 1, (uint64_t[]){1});
    assert_int_equal(profile_nfunctions(p), 2);
    profile_free(p);
}

static void test_errors(void **state)
{
    rd_err("version: 2\nevents: Ir\n", 1, "version 2 is not supported");
    rd_err("version: 2.0.1\nevents: Ir\n", 1, "version 2 is not supported");
    rd_err("version: 99999999999999999999999\n", 1, "version 99999999999999999999999 is not");
    rd_err("pid: 12a\n", 1, "expected a number after 'pid:'");
    rd_err("fn=f\nevents: Ir\n", 1, "'fn=' line before the 'events:' line");
    rd_err("# c\n1 2\n", 2, "cost line before the 'events:' line");
    rd_err("events: Ir\n1 2\n", 2, "cost line before any 'fn=' line");
    rd_err("events: Ir\nfn=f\n1 2 3\n", 3, "too many costs (2) for 1 event");
    rd_err("events: A B\nfn=f\n1 2 3 4 5\n", 3, "too many costs (4) for 2 events");
    rd_err("events: Ir\nfn=f\n1 2x\n", 3, "unexpected character 'x' in a cost");
    rd_err("events: Ir\nfn=f\n1 abc\n", 3, "expected a cost, found 'a'");
    rd_err("events: Ir\nfn=f\n5 1\n-6 1\n", 4, "relative position -6 goes below zero");
    rd_err("positions: instr line\nevents: Ir\nfn=f\n0x10\n", 4, "expected 2 positions, found 1");
    rd_err("events: Ir\nfn=f\n1 99999999999999999999\n", 3, "cost does not fit in 64 bits");
    rd_err("events: Ir\nfn=f\n18446744073709551615 1\n+1 1\n", 4,
           "position does not fit in 64 bits");
    rd_err("events: Ir\nfn=f\n1x 2\n", 3, "unexpected character 'x' in a position");
    rd_err("events: Ir\nfn=f\nfoo=1\n", 3, "unknown line type 'foo='");
    rd_err("events: Ir\nfn=f\ncalls=1 2\n", 3, "'calls=' line without a preceding 'cfn='");
    rd_err("events: Ir\nfn=f\ncfn=g\ncalls=x 2\n", 4, "expected a number after 'calls='");
    rd_err("events: Ir\nfn=f\ncfn=g\ncalls=1\n", 4, "expected 1 position, found 0");
    rd_err("events: Ir\nfn=f\ncfn=g\ncalls=1 2\nfn=h\n", 5,
           "expected the position line of the 'calls=' on line 4");
    rd_err("events: Ir\nfn=f\ncfn=g\ncalls=1 2\n", 4, "'calls=' line is not followed");
    rd_err("events: Ir\nfn=f\njcnd=1 2\n", 3, "expected 1 position, found 0");
    rd_err("events: Ir\nfn=f\njcnd=5/ 2\n", 3, "expected two counts after 'jcnd='");
    rd_err("events: Ir\nfn=f\njump=1 2\n", 3, "'jump=' line is not followed");
    rd_err("positions: line line\n", 1, "position kind 'line' given twice");
    rd_err("positions: foo\n", 1, "unknown position kind 'foo'");
    rd_err("events: Ir Ir\n", 1, "event 'Ir' listed twice");
    rd_err("events:\n", 1, "names no event");
    rd_err("events: Ir\nsummary: 1 2\n", 2, "too many values in the 'summary:' line");
    rd_err("summary: 1 2\nevents: Ir\n", 1, "too many values in the 'summary:' line");
    rd_err("events: Ir\ntotals: x\n", 2, "expected a number in the 'totals:' line");
    rd_err("event: = Ir\n", 1, "bad event name");
    rd_err("events: Ir\nfn=f\n  1 2\n", 3, "unexpected indented line");
    rd_err("events: Ir\nfn=f\nhello world\n", 3, "unknown line 'hello world'");
    rd_err("# only a comment\n", 1, "no 'events:' line");
    rd_err("pid: 3\n", 1, "part has no 'events:' line");
    rd_err("events: Ir\nfn=f\n1 18446744073709551615\n1 1\n", 4, "costs of event Ir sum past");
    /* the self costs of one event over the whole file (any function, any part) */
    rd_err("events: Ir Dr\nfn=f\n1 0 18446744073709551614\nfn=g\n2 1 1\n3 0 1\n", 6,
           "costs of event Dr sum past 2^64-1");
    rd_err("events: Ir\nfn=f\n1 18446744073709551615\ntotals: 18446744073709551615\n"
           "events: Ir\nfn=g\n2 1\n",
           7, "costs of event Ir sum past");
    /* call costs are inclusive: they are not part of the sum */
    struct tally_error err;
    struct profile *p =
        read_cg("events: Ir\nfn=f\n1 18446744073709551615\ncfn=g\ncalls=1 2\n"
                "1 18446744073709551615\ncfn=g\ncalls=1 3\n2 18446744073709551615\n",
                NULL, &err);
    if (!p) fail_msg("refused: %s", err.msg);
    profile_free(p);
}

static void test_positions_order_any(void **state)
{
    /* the kinds may be listed in any order: here line comes first */
    struct profile *p = rd("positions: line instr\nevents: Ir\nfn=f\n5 0x10 1\n");
    expect_costs(cost_at(p, 0, fn_of(p, "", "", "f"), "", 5, 0x10), 1, (uint64_t[]){1});
    profile_free(p);
}

/* ---------------------------------------------------------------------- */
/* Round trips: compare two profiles record by record, through names.     */

struct lines {
    char **v;
    size_t n, cap;
};

static void add_line(struct lines *l, char *s)
{
    l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
    l->v[l->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *fn_str(const struct profile *p, uint32_t fn)
{
    struct function f = profile_function_at(p, fn);
    return xasprintf("%s|%s|%s", profile_str(p, f.obj), profile_str(p, f.file),
                     profile_str(p, f.name));
}

static char *pos_str(const struct profile *p, const struct position *pos)
{
    return xasprintf("%s:%" PRIu64 ":%" PRIx64 ":%" PRIu64, profile_str(p, pos->file), pos->line,
                     pos->addr, pos->bb);
}

static char *vec_str(const uint64_t *c, size_t n)
{
    char *s = xstrdup("");
    for (size_t i = 0; i < n; i++) {
        char *t = xasprintf("%s %" PRIu64, s, c[i]);
        free(s);
        s = t;
    }
    return s;
}

/* Every record of part k as sorted text lines. */
static void part_lines(const struct profile *p, size_t k, struct lines *out)
{
    const struct part *pt = p->parts[k];
    size_t n = pt->events.n;
    char *ev = eventset_join(&pt->events);
    add_line(out, xasprintf("E %s", ev));
    free(ev);
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec c;
        part_cost_get(pt, i, &c);
        char *f = fn_str(p, c.fn), *ps = pos_str(p, &c.pos), *v = vec_str(c.cost, n);
        add_line(out, xasprintf("C %s @%s =%s", f, ps, v));
        free(f), free(ps), free(v);
    }
    for (size_t i = 0; i < part_ncalls(pt); i++) {
        struct call_rec c;
        part_call_get(pt, i, &c);
        char *a = fn_str(p, c.caller), *b = fn_str(p, c.callee), *s = pos_str(p, &c.site),
             *t = pos_str(p, &c.target), *v = vec_str(c.cost, n);
        add_line(out, xasprintf("K %s @%s -> %s @%s x%" PRIu64 " =%s", a, s, b, t, *c.count, v));
        free(a), free(b), free(s), free(t), free(v);
    }
    for (size_t i = 0; i < part_njumps(pt); i++) {
        struct jump_rec j;
        part_jump_get(pt, i, &j);
        char *a = fn_str(p, j.fn), *b = fn_str(p, j.target_fn), *s = pos_str(p, &j.src),
             *t = pos_str(p, &j.target);
        add_line(out, xasprintf("J%d %s @%s -> %s @%s %" PRIu64 "/%" PRIu64, j.conditional, a, s, b,
                                t, *j.taken, *j.executed));
        free(a), free(b), free(s), free(t);
    }
    qsort(out->v, out->n, sizeof(*out->v), cmp_str);
}

static void free_lines(struct lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static void same_profiles(const struct profile *a, const struct profile *b)
{
    assert_int_equal(a->nparts, b->nparts);
    for (size_t k = 0; k < a->nparts; k++) {
        struct lines la = {0}, lb = {0};
        part_lines(a, k, &la);
        part_lines(b, k, &lb);
        for (size_t i = 0; i < la.n && i < lb.n; i++)
            if (strcmp(la.v[i], lb.v[i]))
                fail_msg("part %zu differs:\n  %s\n  %s", k, la.v[i], lb.v[i]);
        assert_int_equal(la.n, lb.n);
        const struct part *x = a->parts[k], *y = b->parts[k];
        assert_int_equal(x->positions | POS_LINE, y->positions | POS_LINE);
        assert_int_equal(x->has_pid, y->has_pid);
        assert_int_equal(x->pid, y->pid);
        assert_int_equal(x->part_no, y->part_no);
        assert_int_equal(x->desc.n, y->desc.n);
        assert_true((x->cmd == NULL) == (y->cmd == NULL));
        if (x->cmd) assert_string_equal(x->cmd, y->cmd);
        for (size_t e = 0; x->summary && e < x->events.n; e++)
            assert_int_equal(x->summary[e], y->summary[e]);
        free_lines(&la);
        free_lines(&lb);
    }
}

static char *write_text(const struct profile *p, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    struct tally_error err;
    if (callgrind_write(p, fp, &err)) fail_msg("write failed: %s", err.msg);
    fclose(fp);
    return buf;
}

/*
 * Compressed function ids belong to a function (object, file, name), as
 * Callgrind writes them: (below main) of the program and of libc, and f in
 * two files of one object, get an id each; a call names its callee's id.
 * Read back, the four functions stay four.
 */
static void test_fn_ids_per_function(void **state)
{
    (void)state;
    struct profile *p = rd("events: Ir\n"
                           "ob=prog\nfl=???\nfn=(below main)\n0 1\n"
                           "cob=libc\ncfi=start.h\ncfn=(below main)\ncalls=1 0\n0 9\n"
                           "fl=a.c\nfn=f\n1 2\n"
                           "fl=b.c\nfn=f\n1 3\n"
                           "ob=libc\nfl=start.h\nfn=(below main)\n0 4\n"
                           "cob=prog\ncfi=a.c\ncfn=f\ncalls=1 1\n0 2\n"
                           "cob=prog\ncfi=b.c\ncfn=f\ncalls=1 1\n0 3\n");
    assert_int_equal(profile_nfunctions(p), 4);
    size_t len;
    char *text = write_text(p, &len);
    /* four definitions, (1) to (4), each naming one function */
    int defs = 0;
    for (const char *s = text; (s = strstr(s, "fn=(")); s++)
        if (s[4] >= '1' && s[4] <= '4' && s[5] == ')' && s[6] == ' ') defs++;
    assert_int_equal(defs, 4);
    assert_non_null(strstr(text, "fn=(1) (below main)\n"));
    assert_non_null(strstr(text, "fn=(2) (below main)\n"));
    assert_null(strstr(text, "fn=(5)"));
    struct profile *q = rd(text);
    assert_int_equal(profile_nfunctions(q), 4);
    assert_int_equal(part_ncalls(q->parts[0]), 3);
    size_t len2;
    char *text2 = write_text(q, &len2);
    assert_string_equal(text, text2);
    free(text);
    free(text2);
    profile_free(q);
    profile_free(p);
}

static struct profile *read_text(const char *buf, size_t len)
{
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open_mem(&in, "rewritten", buf, len, &err), 0);
    struct profile *p = profile_new();
    static const struct read_options opt;
    if (callgrind_read(&in, p, &opt, &err))
        fail_msg("re-read failed: %s:%lu: %s\n%s", err.file, err.line, err.msg, buf);
    input_close(&in);
    return p;
}

static void roundtrip(struct profile *p, const char *save_as)
{
    size_t len;
    char *buf = write_text(p, &len);
    if (save_as) {
        FILE *fp = fopen(save_as, "w");
        assert_non_null(fp);
        fwrite(buf, 1, len, fp);
        fclose(fp);
    }
    struct profile *q = read_text(buf, len);
    same_profiles(p, q);
    /* writing the re-read profile gives the same text again */
    size_t len2;
    char *buf2 = write_text(q, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(buf, buf2, len);
    free(buf2);
    profile_free(q);
    free(buf);
}

static void test_roundtrip_samples(void **state)
{
    const char *samples[] = {basic, xdebug, pprof,
                             "positions: instr line\nevents: Ir\nfl=(1) a.c\nfn=(1) f\n"
                             "0x10 5 3\njcnd=9/10 +8 +2\n+2 *\njump=4 -2 -1\n* +1\n"
                             "jfi=(2) b.c\njfn=(2) g\njump=1 0x40 1\n* *\n"
                             "fi=(3) c.h\n0x500 1000 1\ncob=(9) lib.so\ncfi=(2)\ncfn=(2)\n"
                             "calls=2 0x40 1\n0x501 1000 7\ncfn=(1)\ncalls=1 0x10 5\n* 1001 1\n"
                             "fe=(1)\n0x30 999 2\n"};
    for (size_t i = 0; i < sizeof(samples) / sizeof(*samples); i++) {
        struct profile *p = rd(samples[i]);
        roundtrip(p, NULL);
        profile_free(p);
    }
    /* derived events and long names survive too */
    struct profile *p = rd("event: Ir : Instr\nevent: S = Ir + Dr\nevents: Ir Dr\nfn=f\n1 1 2\n");
    size_t len;
    char *buf = write_text(p, &len);
    struct profile *q = read_text(buf, len);
    assert_string_equal(q->parts[0]->events.long_names[0], "Instr");
    assert_int_equal(q->parts[0]->events.nderived, 1);
    assert_string_equal(q->parts[0]->events.derived[0].name, "S");
    free(buf);
    profile_free(q);
    profile_free(p);
}

/* The writer's text: compression and grouping, checked literally. */
static void test_writer_text(void **state)
{
    struct profile *p = rd("positions: instr line\nevents: Ir Dr\n"
                           "ob=o\nfl=a.c\nfn=f\n0x1000 10 5\n0x1004 11 1 2\n"
                           "cfn=g\ncalls=3 0x2000 50\n0x1008 12 9\n"
                           "fn=g\n0x2000 50 1\n");
    size_t len;
    char *buf = write_text(p, &len);
    const char *want = "# callgrind format\n"
                       "version: 1\n"
                       "creator: tally\n"
                       "\n"
                       "positions: instr line\n"
                       "events: Ir Dr\n"
                       "\n"
                       "\n"
                       "ob=(1) o\n"
                       "fl=(1) a.c\n"
                       "fn=(1) f\n"
                       "0x1000 10 5\n"
                       "+4 +1 1 2\n"
                       "cfn=(2) g\n"
                       "calls=3 0x2000 +39\n"
                       "+4 +1 9\n"
                       "\n"
                       "fn=(2)\n"
                       "0x2000 +38 1\n"
                       "\n"
                       "totals: 7 2\n";
    assert_string_equal(buf, want);
    free(buf);
    profile_free(p);
}

static void test_write_signed(void **state)
{
    struct profile *p = rd("events: Ir\nfn=f\n1 5\n");
    struct tally_error err;
    assert_int_equal(profile_make_signed(p, &err), 0);
    uint64_t minus = (uint64_t)-3;
    struct position pos = {0, 2, 0, 0};
    assert_int_equal(part_add_cost(p, p->parts[0], 0, &pos, &minus, 1), 0);
    size_t len;
    char *buf = write_text(p, &len);
    assert_non_null(strstr(buf, "\n+1 -3\n"));
    assert_non_null(strstr(buf, "totals: 2\n"));
    free(buf);
    profile_free(p);
}

/* Real files named by TALLY_CG_FILES: round trip, and compressed copies. */
/* Each fn= line records which function it named last (annotate labels a
 * row shared by several objects with the last one); cfn= lines do not,
 * and accumulating into another profile carries them, after its own. */
static void test_fn_mentions(void **state)
{
    (void)state;
    struct profile *p = rd("events: Ir\n"
                           "ob=a\nfl=f.c\nfn=(1) x\n1 1\n"
                           "cob=c\ncfn=z\ncalls=1 0\n2 5\n"
                           "ob=b\nfn=x\n1 2\n"
                           "ob=a\nfn=(1)\n1 3\n"
                           "ob=c\nfl=g.c\nfn=z\n0 5\n");
    uint32_t ax = fn_of(p, "a", "f.c", "x"), bx = fn_of(p, "b", "f.c", "x");
    uint32_t cz = fn_of(p, "c", "g.c", "z");
    assert_int_equal(profile_function_mention(p, ax), 3);
    assert_int_equal(profile_function_mention(p, bx), 2);
    assert_int_equal(profile_function_mention(p, cz), 4);
    /* the callee function of the cfn= line (file f.c, not named by fn=) */
    assert_int_equal(profile_function_mention(p, fn_of(p, "c", "f.c", "z")), 0);
    struct profile *q = profile_new();
    struct tally_error err;
    tally_error_clear(&err);
    profile_add_part(q);
    assert_int_equal(part_accumulate(q, q->parts[0], p, p->parts[0], &err), 0);
    assert_int_equal(profile_function_mention(q, fn_of(q, "a", "f.c", "x")), 3);
    assert_int_equal(profile_function_mention(q, fn_of(q, "b", "f.c", "x")), 2);
    assert_int_equal(profile_function_mention(q, fn_of(q, "c", "g.c", "z")), 4);
    assert_int_equal(profile_function_mention(q, fn_of(q, "c", "f.c", "z")), 0);
    /* a second time: after the first one's */
    assert_int_equal(part_accumulate(q, q->parts[0], p, p->parts[0], &err), 0);
    assert_int_equal(profile_function_mention(q, fn_of(q, "a", "f.c", "x")), 4 + 3);
    assert_int_equal(profile_function_mention(q, fn_of(q, "b", "f.c", "x")), 4 + 2);
    profile_free(q);
    profile_free(p);
}

/*
 * Whether every line gave every count (struct part: counts_complete):
 * callgrind_annotate prints a zero a line gave as 0, one it did not as '.'.
 */
static void test_counts_complete(void **state)
{
    (void)state;
    /* xdebug's shape: both counts on every cost and call line */
    struct profile *p = rd("events: T M\nfn=f\n1 5 0\ncfn=g\ncalls=1 0 0\n2 3 0\n");
    assert_true(p->parts[0]->counts_complete);
    profile_free(p);
    /* Callgrind's: trailing zeros left out; a line without costs does not count */
    p = rd("events: T M\nfn=f\n1 5 0\n3\n2 3\n");
    assert_false(p->parts[0]->counts_complete);
    profile_free(p);
    p = rd("events: T M\nfn=f\n1 5 0\ncfn=g\ncalls=1 0\n2 3\n");
    assert_false(p->parts[0]->counts_complete);
    profile_free(p);
    /* per part; parts added together keep it only if each had it */
    static const char two[] = "events: T M\nfn=f\n1 5 1\n"
                              "events: T M\nfn=f\n1 5\n";
    p = rd(two);
    assert_int_equal(p->nparts, 2);
    assert_true(p->parts[0]->counts_complete);
    assert_false(p->parts[1]->counts_complete);
    profile_free(p);
    p = rd_opt(two, &(struct read_options){.merge_parts = 1});
    assert_int_equal(p->nparts, 1);
    assert_false(p->parts[0]->counts_complete);
    profile_free(p);
    /* the writer keeps the zeros of such a part, so reading it back keeps the flag */
    p = rd("events: T M\nfn=f\n1 5 0\n");
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct tally_error err;
    assert_int_equal(callgrind_write(p, fp, &err), 0);
    fclose(fp);
    assert_non_null(strstr(buf, "\n1 5 0\n"));
    struct profile *q = rd(buf);
    assert_true(q->parts[0]->counts_complete);
    profile_free(q);
    free(buf);
    profile_free(p);
}

static void test_real_files(void **state)
{
    const char *env = getenv("TALLY_CG_FILES");
    if (!env || !*env) {
        print_message("TALLY_CG_FILES not set: tests/cli/callgrind_roundtrip.sh sets it\n");
        return;
    }
    const char *outdir = getenv("TALLY_CG_OUTDIR");
    char *list = xstrdup(env), *save = NULL;
    int n = 0;
    for (char *path = strtok_r(list, ":", &save); path; path = strtok_r(NULL, ":", &save)) {
        struct tally_error err;
        struct profile *p = profile_read(path, NULL, &err);
        if (!p) fail_msg("%s:%lu: %s", err.file, err.line, err.msg);
        assert_int_equal(p->format, PROFILE_FORMAT_CALLGRIND);
        char *out = NULL;
        if (outdir) {
            const char *base = strrchr(path, '/');
            out = xasprintf("%s/%s", outdir, base ? base + 1 : path);
        }
        roundtrip(p, out);
        free(out);
        const char *ext[] = {".gz", ".zst"};
        for (int k = 0; k < 2; k++) {
            char *z = xasprintf("%s%s", path, ext[k]);
            FILE *fp = fopen(z, "r");
            if (fp) {
                fclose(fp);
                struct profile *q = profile_read(z, NULL, &err);
                if (!q) fail_msg("%s:%lu: %s", err.file, err.line, err.msg);
                same_profiles(p, q);
                profile_free(q);
                n++;
            }
            free(z);
        }
        profile_free(p);
        n++;
    }
    free(list);
    print_message("checked %d files\n", n);
}

/*
 * The sums of the file's self costs are checked through a bound (lines
 * times the OR of the counts, formats/sumbound.h); where it fails, the
 * reader adds the sums up from the parts that ended (taken at their end)
 * and the current part's records. Two parts here have a call arc whose
 * inclusive costs (2^63 each) cannot be added: with merge_parts the fold of
 * the second part into the first fails half way (its self costs are then
 * in both), and the bound fails in the third part (the call costs are in
 * the OR). The sums are still those of the lines: 2 * 99999999 + V, with
 * V = 2^64-1 - 199999998 exactly at the limit (the read is then refused
 * only by the fold's error, at the end) and V + 1 past it (at line 15).
 */
static void test_sums_bound(void **state)
{
    (void)state;
    static const char head[] = "events: Ir\nfn=f\n1 99999999\ncfn=g\ncalls=1 9\n"
                               "1 9223372036854775808\n"
                               "events: Ir\nfn=f\n1 99999999\ncfn=g\ncalls=1 9\n"
                               "1 9223372036854775808\n"
                               "events: Ir\nfn=h\n";
    char at[256], past[256];
    snprintf(at, sizeof(at), "%s2 18446744073509551617\n", head);
    snprintf(past, sizeof(past), "%s2 18446744073509551618\n", head);
    struct read_options fold = {.merge_parts = 1};
    rd_err_opt(at, &fold, 0, "costs overflow 64 bits when added together");
    rd_err_opt(past, &fold, 15, "the costs of event Ir sum past 2^64-1");
    profile_free(rd(at));
    rd_err(past, 15, "the costs of event Ir sum past 2^64-1");
    /* the bound fails in the first part (2^63 needs no more than 2 lines) */
    rd_err("events: Ir\nfn=f\n1 9223372036854775808\nevents: Ir\nfn=g\n"
           "2 9223372036854775807\nevents: Ir\nfn=h\n3 0\n3 1\n",
           10, "the costs of event Ir sum past 2^64-1");
    /* only in the last one: 8-digit counts are inside it from the start */
    rd_err("events: Ir Dr\nfn=f\n1 5 99999999\nevents: Dr Ir\nfn=g\n2 99999999 7\n"
           "events: Ir Dr\nfn=h\n3 0 18446744073509551617\n3 0 1\n",
           10, "the costs of event Dr sum past 2^64-1");
    profile_free(rd("events: Ir Dr\nfn=f\n1 5 99999999\nevents: Dr Ir\nfn=g\n2 99999999 7\n"
                    "events: Ir Dr\nfn=h\n3 0 18446744073509551617\n3 0 0\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_totals_warning),
        cmocka_unit_test(test_desc_verbatim),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_bb_positions),
        cmocka_unit_test(test_positions_order_any),
        cmocka_unit_test(test_calls),
        cmocka_unit_test(test_inline_files),
        cmocka_unit_test(test_jumps),
        cmocka_unit_test(test_drop_addr),
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_fn_ids_per_function),
        cmocka_unit_test(test_parts_folded_while_reading),
        cmocka_unit_test(test_derived_events),
        cmocka_unit_test(test_crlf_blank_comments),
        cmocka_unit_test(test_negative_costs),
        cmocka_unit_test(test_xdebug),
        cmocka_unit_test(test_pprof),
        cmocka_unit_test(test_rcalls_and_unknown_header),
        cmocka_unit_test(test_producer_quirks),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_sums_bound),
        cmocka_unit_test(test_roundtrip_samples),
        cmocka_unit_test(test_writer_text),
        cmocka_unit_test(test_write_signed),
        cmocka_unit_test(test_fn_mentions),
        cmocka_unit_test(test_counts_complete),
        cmocka_unit_test(test_real_files),
    };
    return cmocka_run_group_tests_name("callgrind", tests, NULL, NULL);
}
