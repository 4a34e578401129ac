/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_view.c - libFuzzer harness for the API of `tally view`.
 *
 * The input's first line is a request ("/api/PATH?QUERY"); what follows,
 * when it reads as a callgrind profile, is the profile the session holds
 * (else a small built-in one with recursion, an inlined file and a cycle).
 * view_answer() must give a status from 200 to 599 and a body; a JSON
 * answer is one object ending in a newline. The call graph (which runs
 * `dot` in a child process) is left out: its DOT text is fuzzed through
 * the same names by fuzz_convert's inputs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "view/api.h"
#include "view/session.h"

static const char builtin[] =
    "events: Ir Dr\n"
    "fl=a.c\nfn=main\n3 10 2\ncfn=f\ncalls=2 20\n4 500 40\n"
    "cfn=g\ncalls=1 30\n5 100 3\n"
    "fn=f\n20 50 4\nfi=b.h\n7 30 1\nfe=a.c\ncfn=g\ncalls=3 30\n21 400 30\n"
    "fn=g\n30 80 9\ncfn=h\ncalls=1 40\n31 60 4\n"
    "fn=h\n40 20 1\ncfn=g\ncalls=1 30\n41 40 3\n";

static struct profile *load(const char *data, size_t size)
{
    struct input in;
    struct tally_error err;
    if (input_open_mem(&in, "fuzz", data, size, &err)) return NULL;
    struct profile *p = profile_new();
    struct read_options opt = {.merge_parts = 1, .drop_jumps = 1};
    int rc = callgrind_read(&in, p, &opt, &err);
    input_close(&in);
    if (rc || p->nparts != 1) {
        profile_free(p);
        return NULL;
    }
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *nl = memchr(data, '\n', size);
    size_t rlen = nl ? (size_t)(nl - (const char *)data) : size;
    char *req = malloc(rlen + 1);
    memcpy(req, data, rlen);
    req[rlen] = 0;
    if (strlen(req) != rlen || strncmp(req, "/api/", 5) || !strncmp(req, "/api/graph", 10)) {
        free(req);
        return 0;
    }
    struct profile *p = nl ? load(nl + 1, size - rlen - 1) : NULL;
    if (!p) p = load(builtin, sizeof(builtin) - 1);
    if (!p) abort(); /* the built-in profile always reads */
    struct view_config cfg = {0};
    struct tally_error err;
    struct view_session *s = view_session_new(p, &cfg, &err);
    if (!s) {
        free(req);
        return 0;
    }
    char *q = strchr(req, '?');
    if (q) *q++ = 0;
    struct view_args a;
    if (view_args_parse(q ? q : (char *)"", &a) == 0) {
        for (int round = 0; round < 2; round++) { /* the second answer may come from a cache */
            struct view_reply r;
            view_answer(s, req, &a, &r);
            if (r.status < 200 || r.status > 599 || !r.body || !r.type) abort();
            if (strstr(r.type, "json") && (r.len < 3 || r.body[0] != '{' ||
                                           r.body[r.len - 1] != '\n' || r.body[r.len - 2] != '}'))
                abort();
            free(r.body);
        }
    }
    view_session_free(s);
    free(req);
    return 0;
}
