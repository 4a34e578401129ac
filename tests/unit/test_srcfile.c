/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of src/report/srcfile.h: the order in which each search rule
 * tries paths (the rules of callgrind_annotate, of the HTML report and of
 * gprof, written out in srcfile.h), the tests, the directory lists and
 * the reader's line index. A recording test lists every path a rule
 * tries, so the order itself is checked, not only the winner.
 */
#include "testutil.h"

#include <sys/stat.h>
#include <unistd.h>

#include "report/srcfile.h"

/* an accept test that records every path and takes none, or the one
 * equal to `want` */
struct record {
    struct strlist tried;
    const char *want;
};

static int record_path(const char *path, void *ctx)
{
    struct record *r = ctx;
    strlist_push(&r->tried, path);
    return r->want && strcmp(path, r->want) == 0;
}

/* the paths tried, joined with '|' */
static char *tried(const char *name, const struct strlist *dirs, enum srcfile_rule rule)
{
    struct record r = {{0}, NULL};
    struct srcfile_found f;
    assert_int_equal(srcfile_find(name, dirs, rule, record_path, &r, &f), 0);
    assert_null(f.path);
    size_t len = 1;
    for (size_t i = 0; i < r.tried.n; i++)
        len += strlen(r.tried.items[i]) + 1;
    char *out = xcalloc(len, 1);
    for (size_t i = 0; i < r.tried.n; i++) {
        if (i) strcat(out, "|");
        strcat(out, r.tried.items[i]);
    }
    strlist_release(&r.tried);
    return out;
}

static void check_order(const char *name, const struct strlist *dirs, enum srcfile_rule rule,
                        const char *want)
{
    char *got = tried(name, dirs, rule);
    assert_string_equal(got, want);
    free(got);
}

static void test_orders(void **state)
{
    (void)state;
    struct strlist pre = {0}, dirs = {0};
    strlist_push(&pre, "p/");
    strlist_push(&pre, "q/");
    strlist_push(&dirs, "d");
    strlist_push(&dirs, "e");
    /* annotate: NAME, then each prefix + NAME; never the basename */
    check_order("s/f.c", &pre, SRCFILE_PREFIX, "s/f.c|p/s/f.c|q/s/f.c");
    check_order("/a/f.c", &pre, SRCFILE_PREFIX, "/a/f.c|p//a/f.c|q//a/f.c");
    /* HTML report: per directory, DIR/NAME then DIR/BASENAME */
    check_order("s/f.c", &dirs, SRCFILE_BASE, "s/f.c|d/s/f.c|d/f.c|e/s/f.c|e/f.c");
    check_order("f.c", &dirs, SRCFILE_BASE, "f.c|d/f.c|e/f.c");
    check_order("/a/f.c", &dirs, SRCFILE_BASE, "/a/f.c|d//a/f.c|d/f.c|e//a/f.c|e/f.c");
    /* gprof: every DIR/NAME (relative NAME only), then every DIR/BASENAME */
    check_order("s/f.c", &dirs, SRCFILE_GPROF, "s/f.c|d/s/f.c|e/s/f.c|d/f.c|e/f.c");
    check_order("/a/f.c", &dirs, SRCFILE_GPROF, "/a/f.c|d/f.c|e/f.c");
    check_order("f.c", &dirs, SRCFILE_GPROF, "f.c|d/f.c|e/f.c");
    /* no directories: NAME alone */
    check_order("s/f.c", NULL, SRCFILE_GPROF, "s/f.c");
    check_order("s/f.c", NULL, SRCFILE_BASE, "s/f.c");
    strlist_release(&pre);
    strlist_release(&dirs);
}

static void test_found(void **state)
{
    (void)state;
    struct strlist dirs = {0};
    strlist_push(&dirs, "d");
    strlist_push(&dirs, "e");
    struct record r = {{0}, "e/f.c"};
    struct srcfile_found f;
    /* the first accepted path wins, and says which directory gave it */
    assert_int_equal(srcfile_find("s/f.c", &dirs, SRCFILE_GPROF, record_path, &r, &f), 1);
    assert_string_equal(f.path, "e/f.c");
    assert_int_equal(f.dir, 2);
    assert_int_equal(r.tried.n, 5);
    free(f.path);
    strlist_release(&r.tried);
    r.want = "s/f.c";
    assert_int_equal(srcfile_find("s/f.c", &dirs, SRCFILE_BASE, record_path, &r, &f), 1);
    assert_int_equal(f.dir, 0);
    assert_int_equal(r.tried.n, 1);
    free(f.path);
    strlist_release(&r.tried);
    strlist_release(&dirs);
}

static void test_dirs_add(void **state)
{
    (void)state;
    struct strlist dirs = {0};
    srcfile_dirs_add(&dirs, "a:b::/c");
    srcfile_dirs_add(&dirs, NULL);
    srcfile_dirs_add(&dirs, ":x:");
    assert_int_equal(dirs.n, 4);
    assert_string_equal(dirs.items[0], "a");
    assert_string_equal(dirs.items[1], "b");
    assert_string_equal(dirs.items[2], "/c");
    assert_string_equal(dirs.items[3], "x");
    strlist_release(&dirs);
}

/* a scratch folder with sub/f.c holding `text` */
static char *scratch(const char *text, char **file)
{
    char tmpl[] = "/tmp/tally-srcfile-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char *sub = xasprintf("%s/sub", tmpl);
    assert_int_equal(mkdir(sub, 0700), 0);
    free(sub);
    *file = xasprintf("%s/sub/f.c", tmpl);
    FILE *fp = fopen(*file, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    return xstrdup(tmpl);
}

static void remove_scratch(char *dir, char *file)
{
    char *sub = xasprintf("%s/sub", dir);
    unlink(file);
    rmdir(sub);
    rmdir(dir);
    free(sub);
    free(dir);
    free(file);
}

static void test_real_files(void **state)
{
    (void)state;
    char *file;
    char *dir = scratch("int x;\n", &file);
    struct strlist sp = {0};
    struct srcfile_found f;
    /* not in the current directory */
    assert_int_equal(srcfile_find("sub/f.c", &sp, SRCFILE_GPROF, srcfile_opens, NULL, &f), 0);
    strlist_push(&sp, dir);
    assert_int_equal(srcfile_find("sub/f.c", &sp, SRCFILE_GPROF, srcfile_opens, NULL, &f), 1);
    assert_string_equal(f.path, file);
    free(f.path);
    /* a prefix rule needs the '/' in the prefix */
    assert_int_equal(srcfile_find("sub/f.c", &sp, SRCFILE_PREFIX, srcfile_access, NULL, &f), 0);
    strlist_release(&sp);
    char *sub = xasprintf("%s/sub", dir);
    strlist_push(&sp, sub);
    assert_int_equal(srcfile_find("/elsewhere/f.c", &sp, SRCFILE_BASE, srcfile_access, NULL, &f),
                     1);
    assert_string_equal(f.path, file);
    assert_int_equal(f.dir, 1);
    free(f.path);
    free(sub);
    strlist_release(&sp);
    remove_scratch(dir, file);
}

static void test_text(void **state)
{
    (void)state;
    char *file;
    char *dir = scratch("one\n\ntwo\nlast", &file);
    struct srcfile_text t;
    assert_int_equal(srcfile_text_read(&t, file, SIZE_MAX), 0);
    assert_int_equal(t.len, 13);
    assert_int_equal(t.nlines, 4); /* the last line has no '\n' and counts */
    size_t want[] = {0, 4, 5, 9, 13};
    for (size_t i = 0; i <= 4; i++)
        assert_int_equal(t.line_off[i], want[i]);
    assert_int_equal(t.text[t.len], 0);
    srcfile_text_release(&t);
    /* the size limit and the regular-file rule */
    assert_int_equal(srcfile_text_read(&t, file, 13), 0);
    srcfile_text_release(&t);
    assert_int_equal(srcfile_text_read(&t, file, 12), -1);
    assert_null(t.text);
    assert_int_equal(srcfile_text_read(&t, dir, 1000), -1);
    assert_int_equal(srcfile_text_read(&t, dir, SIZE_MAX), -1); /* a folder does not read */
    char *missing = xasprintf("%s/none.c", dir);
    assert_int_equal(srcfile_text_read(&t, missing, SIZE_MAX), -1);
    free(missing);
    remove_scratch(dir, file);
    /* an empty file: no line */
    dir = scratch("", &file);
    assert_int_equal(srcfile_text_read(&t, file, SIZE_MAX), 0);
    assert_int_equal(t.nlines, 0);
    assert_int_equal(t.line_off[0], 0);
    srcfile_text_release(&t);
    remove_scratch(dir, file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders),   cmocka_unit_test(test_found),
        cmocka_unit_test(test_dirs_add), cmocka_unit_test(test_real_files),
        cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
