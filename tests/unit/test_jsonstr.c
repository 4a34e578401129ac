/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the JSON string writer (src/io/jsonstr.h). The expected
 * texts follow RFC 8259 section 7 (what must be escaped, the \uXXXX form)
 * and RFC 3629 (what is well-formed UTF-8), plus the two forms jsonstr.h
 * documents; the byte-by-byte test checks the rules on every byte value.
 */
#include "testutil.h"

#include "io/jsonstr.h"

/* What the writer puts on a stream, as a string (caller frees): the
 * n bytes at s with jsonstr_write, or s with jsonstr_puts when n is
 * (size_t)-1. */
static char *quote(const char *s, size_t n, unsigned flags)
{
    char *out = NULL;
    size_t len;
    FILE *fp = open_memstream(&out, &len);
    assert_non_null(fp);
    if (n == (size_t)-1)
        jsonstr_puts(fp, s, flags);
    else
        jsonstr_write(fp, s, n, flags);
    assert_int_equal(fclose(fp), 0);
    return out;
}

static void check(const char *s, size_t n, unsigned flags, const char *want)
{
    char *got = quote(s, n, flags);
    assert_string_equal(got, want);
    free(got);
}

static void test_plain(void **state)
{
    (void)state;
    check("", 0, 0, "\"\"");
    check("abc", 3, 0, "\"abc\"");
    /* the two characters that always take a backslash */
    check("a\"b\\c", 5, 0, "\"a\\\"b\\\\c\"");
    /* short forms for newline and tab, \u00XX for other controls and DEL */
    check("\n\t\r\x01\x1f\x7f", 6, 0, "\"\\n\\t\\u000d\\u0001\\u001f\\u007f\"");
    /* '<', '>', '&' and '/' need nothing in plain JSON */
    check("</a>&", 5, 0, "\"</a>&\"");
    /* a NUL byte inside the n bytes is data */
    check("a\0b", 3, 0, "\"a\\u0000b\"");
}

static void test_script(void **state)
{
    (void)state;
    check("</script>", 9, JSONSTR_SCRIPT, "\"\\u003c/script\\u003e\"");
    check("a&b", 3, JSONSTR_SCRIPT, "\"a\\u0026b\"");
    /* newline as \u000a, tab as \t in the page's form */
    check("\n\t\r", 3, JSONSTR_SCRIPT, "\"\\u000a\\t\\u000d\"");
    check("\"\\", 2, JSONSTR_SCRIPT, "\"\\\"\\\\\"");
}

static void test_utf8(void **state)
{
    (void)state;
    /* well-formed: U+00E9, U+20AC, U+1F600 pass as they are */
    check("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, 0, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    /* a lone continuation byte, an overlong '/', a surrogate, above U+10FFFF:
     * one U+FFFD per byte that starts no sequence */
    check("\x80", 1, 0, "\"\\ufffd\"");
    check("\xc0\xaf", 2, 0, "\"\\ufffd\\ufffd\"");
    check("\xed\xa0\x80", 3, 0, "\"\\ufffd\\ufffd\\ufffd\"");
    check("\xf4\x90\x80\x80", 4, 0, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    /* a sequence cut by the end of the n bytes (the bytes after are never
     * read: here they would complete it) */
    check("\xe2\x82\xac", 2, 0, "\"\\ufffd\\ufffd\"");
    check("x\xf0\x9f\x98\x80", 4, JSONSTR_SCRIPT, "\"x\\ufffd\\ufffd\\ufffd\"");
}

static void test_puts(void **state)
{
    (void)state;
    check(NULL, (size_t)-1, 0, "\"\"");
    check("a<b\n", (size_t)-1, JSONSTR_SCRIPT, "\"a\\u003cb\\u000a\"");
    check("a<b\n", (size_t)-1, 0, "\"a<b\\n\"");
}

/* Every single byte, in both forms: printable ASCII passes (but for the
 * escaped ones), everything else comes out as an escape, so no raw control
 * or non-ASCII byte ever reaches the output. */
static void test_every_byte(void **state)
{
    (void)state;
    for (unsigned f = 0; f <= JSONSTR_SCRIPT; f++) {
        for (unsigned b = 0; b < 256; b++) {
            char in = (char)b;
            char *got = quote(&in, 1, f);
            size_t n = strlen(got);
            assert_true(n >= 3 && got[0] == '"' && got[n - 1] == '"');
            int special = b == '"' || b == '\\' || (f && (b == '<' || b == '>' || b == '&'));
            if (b >= 0x20 && b < 0x7f && !special) {
                assert_int_equal(n, 3);
                assert_int_equal((unsigned char)got[1], b);
            } else {
                assert_int_equal(got[1], '\\');
                for (size_t i = 1; i + 1 < n; i++)
                    assert_true((unsigned char)got[i] >= 0x20 && (unsigned char)got[i] < 0x7f);
            }
            free(got);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),      cmocka_unit_test(test_script),
        cmocka_unit_test(test_utf8),       cmocka_unit_test(test_puts),
        cmocka_unit_test(test_every_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
