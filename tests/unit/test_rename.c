/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for analysis/rename: s/REGEX/REPL/FLAGS with PCRE2. */
#include "testutil.h"

#include "analysis/rename.h"

/* Compile expr, apply to name, compare with want, free everything. */
static void expect(const char *expr, const char *name, const char *want)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct rename *r = rename_compile(expr, &err);
    if (!r) fail_msg("'%s' did not compile: %s", expr, err.msg);
    char *got = rename_apply(r, name, &err);
    if (!got) fail_msg("'%s' on '%s' failed: %s", expr, name, err.msg);
    if (strcmp(got, want) != 0)
        fail_msg("'%s' on '%s': got '%s', want '%s'", expr, name, got, want);
    free(got);
    rename_free(r);
}

/* The expression must be rejected with a message containing `part`. */
static void expect_error(const char *expr, const char *part)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct rename *r = rename_compile(expr, &err);
    if (r) fail_msg("'%s' compiled, but should not", expr);
    if (!strstr(err.msg, part)) fail_msg("'%s': message '%s' lacks '%s'", expr, err.msg, part);
}

static void test_first_and_global(void **state)
{
    (void)state;
    expect("s/o/0/", "foo_boo", "f0o_boo");
    expect("s/o/0/g", "foo_boo", "f00_b00");
    expect("s/main/MAIN/", "main", "MAIN");
    expect("s/^/pre_/", "name", "pre_name");
    expect("s/$/_post/", "name", "name_post");
    expect("s/x*/-/g", "abc", "-a-b-c-"); /* empty matches, as Perl */
    expect("s///", "same", "same");       /* empty regex and replacement */
}

static void test_caseless(void **state)
{
    (void)state;
    expect("s/WORD/x/", "count_word_Word", "count_word_Word");
    expect("s/WORD/x/i", "count_word_Word", "count_x_Word");
    expect("s/WORD/x/gi", "count_word_Word", "count_x_x");
    expect("s/WORD/x/ig", "WoRd", "x");
}

static void test_slashes(void **state)
{
    (void)state;
    expect("s/\\/usr\\/src\\//src:/", "/usr/src/a.c", "src:a.c");
    expect("s/a/\\//g", "banana", "b/n/n/");
    expect("s/^.*\\///", "/home/me/proj/x.c", "x.c");
    /* other escapes are kept for PCRE2: \. is a literal dot, \d a digit */
    expect("s/\\.c$/.cpp/", "x.c", "x.cpp");
    expect("s/\\d+/N/g", "f12g3", "fNgN");
    /* \\ is one backslash; the slash after it ends REGEX */
    expect("s/\\\\/|/g", "a\\b\\c", "a|b|c");
}

static void test_groups(void **state)
{
    (void)state;
    expect("s/(\\w+)_(\\w+)/\\2_\\1/", "count_words", "words_count");
    expect("s/(\\w+)_(\\w+)/$2_$1/", "count_words", "words_count");
    expect("s/(\\w+)_(\\w+)/${2}_${1}/", "count_words", "words_count");
    expect("s/([a-z])([0-9])/\\2\\1/g", "a1b2c3", "1a2b3c");
    expect("s/(a)/\\10/", "a", "a0");               /* \1 then a literal 0 */
    expect("s/(a)|(b)/[\\1\\2]/g", "ab", "[a][b]"); /* unset group is empty */
    expect("s/b/$$/", "abc", "a$c");
    expect("s/(\\w+)/\\U\\1/", "shout", "SHOUT");
    expect("s/(\\w)(\\w*)/\\u\\1\\2/", "title", "Title");
    expect("s/(?<x>ab)/<${x}>/", "cabd", "c<ab>d");
}

static void test_no_match(void **state)
{
    (void)state;
    expect("s/zzz/y/", "abc", "abc");
    expect("s/zzz/y/g", "", "");
    expect("s/^$/empty/", "", "empty");
}

static void test_long_names(void **state)
{
    (void)state;
    size_t n = 100000;
    char *name = malloc(n + 1), *want = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++)
        name[i] = (char)('a' + i % 2); /* abab... */
    name[n] = '\0';
    for (size_t i = 0; i < n / 2; i++)
        memcpy(want + 4 * i, "XXXb", 4); /* each a becomes XXX */
    want[2 * n] = '\0';
    expect("s/a/XXX/g", name, want);
    /* results far larger than the first buffer guess (2 * len + 64) */
    char big[301], expr[320], want2[4 * 301];
    memset(big, 'Z', 300);
    big[300] = '\0';
    snprintf(expr, sizeof(expr), "s/b/%s/g", big);
    snprintf(want2, sizeof(want2), "a%sa%sa%s", big, big, big);
    expect(expr, "ababab", want2);
    free(name);
    free(want);
}

static void test_bad_expressions(void **state)
{
    (void)state;
    expect_error("", "expected the form s/REGEX/REPLACEMENT/");
    expect_error("main", "expected the form");
    expect_error("y/a/b/", "expected the form");
    expect_error("s|a|b|", "expected the form");
    expect_error("s/a", "no closing '/' after REGEX");
    expect_error("s/a\\/b/", "no closing '/' after the replacement");
    expect_error("s/a/b", "no closing '/' after the replacement");
    expect_error("s/a/b/x", "flags 'x' not understood");
    expect_error("s/a/b/gg", "flags 'gg' not understood");
    expect_error("s/a/b/e", "flags 'e' not understood");
    expect_error("s/a/b/ g", "flags ' g' not understood");
    expect_error("s/(a/b/", "bad regex: missing closing parenthesis");
    expect_error("s/a[/b/", "bad regex");
    expect_error("s/*/b/", "bad regex: quantifier does not follow");
    expect_error("s/(a)/\\2/", "refers to group 2, but the regex has only 1");
    expect_error("s/a/$1/", "refers to group 1, but the regex has 0");
    expect_error("s/(a)/${12}/", "refers to group 12");
    expect_error("s/a/${1/", "bad replacement");
    /* the expression is quoted in the message */
    expect_error("s/a/b/q", "'s/a/b/q'");
}

static void test_match_limit(void **state)
{
    (void)state;
    struct tally_error err;
    tally_error_clear(&err);
    /* catastrophic backtracking must fail, not hang */
    struct rename *r = rename_compile("s/(a+)+$/x/", &err);
    assert_non_null(r);
    char name[64];
    memset(name, 'a', 40);
    strcpy(name + 40, "b");
    char *got = rename_apply(r, name, &err);
    if (got) {
        /* PCRE2 may optimise the pattern; then the name is unchanged */
        assert_string_equal(got, name);
        free(got);
    } else {
        assert_non_null(strstr(err.msg, "failed on"));
    }
    assert_string_equal(rename_expr(r), "s/(a+)+$/x/");
    rename_free(r);
    rename_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_and_global), cmocka_unit_test(test_caseless),
        cmocka_unit_test(test_slashes),          cmocka_unit_test(test_groups),
        cmocka_unit_test(test_no_match),         cmocka_unit_test(test_long_names),
        cmocka_unit_test(test_bad_expressions),  cmocka_unit_test(test_match_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
