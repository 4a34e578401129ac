/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * api.h - the questions `tally view`'s page asks, answered from a session
 * (docs/internals/view.md lists the endpoints and their JSON).
 *
 * view_answer() is the whole API as one function of (path, arguments):
 * no socket, no token, no header is seen here (server.c checks those), so
 * the unit tests and the fuzzer call it directly. Every answer is a
 * complete body: JSON, or SVG for the call graph; a question that cannot
 * be answered gets a status >= 400 and a JSON {"error": "..."} body.
 */
#ifndef TALLY_VIEW_API_H
#define TALLY_VIEW_API_H
#include <stddef.h>
#include "session.h"

#define VIEW_MAX_ARGS 16

/* The decoded query arguments of one request (the last value of a key wins). */
struct view_args {
    size_t n;
    const char *key[VIEW_MAX_ARGS];
    const char *val[VIEW_MAX_ARGS];
};

/* The value of key, or NULL. */
const char *view_arg(const struct view_args *a, const char *key);

/*
 * Decode the %HH escapes of s in place, as the server decodes paths and
 * arguments: not %00 (a NUL would end the string early, and
 * "/api/meta%00junk" must not be "/api/meta"), and a '%' that starts no
 * escape stays. Returns the new length.
 */
size_t view_unescape(char *s);

/*
 * Split a raw query string ("a=1&b=x%20y") into args, decoding '+' and
 * %HH (view_unescape()) in place in `buf` (a writable copy of the
 * string). Returns 0, or -1 when it has more than VIEW_MAX_ARGS arguments.
 */
int view_args_parse(char *buf, struct view_args *a);

struct view_reply {
    int status;       /* HTTP status */
    const char *type; /* content type (static string) */
    char *body;       /* malloc'd; the caller frees */
    size_t len;
};

/* Answer GET `path` (starting with "/api/") with the given arguments: the
   parts the `parts` argument names (every part when absent). */
void view_answer(struct view_session *s, const char *path, const struct view_args *a,
                 struct view_reply *r);

#endif
