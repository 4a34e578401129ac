/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * regex.c - PCRE2 compilation with its error as text (regex.h).
 */
#include "regex.h"

#include <stdio.h>

void regex_message(int code, char *buf, size_t size)
{
    if (pcre2_get_error_message(code, (PCRE2_UCHAR *)buf, size) < 0)
        snprintf(buf, size, "PCRE2 error %d", code);
}

pcre2_code *regex_compile(const char *re, uint32_t options, char *msg, size_t size, size_t *offset)
{
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code =
        pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, options, &ec, &eo, NULL);
    if (!code) {
        regex_message(ec, msg, size);
        *offset = (size_t)eo;
    }
    return code;
}
