/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * api_impl.h - what the files of the API share (api.c, api_source.c,
 * api_pictures.c); not for other callers.
 */
#ifndef TALLY_VIEW_API_IMPL_H
#define TALLY_VIEW_API_IMPL_H
#include <stdint.h>
#include <stdio.h>
#include "api.h"

/* An answer being written: a memory stream. */
struct api_out {
    FILE *fp;
    char *buf;
    size_t len;
};
void api_open(struct api_out *o);
/* Close the stream and hand its bytes to r as a JSON answer. */
void api_close(struct api_out *o, struct view_reply *r, int status);
/* r = {"error": TEXT} with the status. */
void api_error(struct view_reply *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Arguments: a number in [0, max] (absent = dflt), the function (`id`),
 * the event (`ev`). On a bad value they answer 400/404 into r and return
 * -1 / VIEW_NO_NODE. */
int api_num(const struct view_args *a, const char *key, uint64_t dflt, uint64_t max, uint64_t *out,
            struct view_reply *r);
uint32_t api_node_arg(struct view_sel *s, const struct view_args *a, struct view_reply *r);
int api_event_arg(const struct view_sel *s, const struct view_args *a, size_t *ev,
                  struct view_reply *r);

/* JSON pieces: a cost (a number, or a string past 2^53), a cost vector,
 * the "id", "name", "file", "obj" fields of a node, a table row. */
void api_cost(FILE *fp, tally_wide v);
void api_costs(FILE *fp, const tally_wide *v, size_t n);
void api_words(FILE *fp, const struct view_sel *s, const uint64_t *w);
void api_names(FILE *fp, const struct view_sel *s, uint32_t v);
void api_row(FILE *fp, const struct view_sel *s, uint32_t v);

/* The endpoints of the other files. */
void api_source(struct view_sel *s, const struct view_args *a, struct view_reply *r);
void api_graph(struct view_sel *s, const struct view_args *a, struct view_reply *r);
void api_flame(struct view_sel *s, const struct view_args *a, struct view_reply *r);
void api_sandwich(struct view_sel *s, const struct view_args *a, struct view_reply *r);
void api_complexity(struct view_sel *s, const struct view_args *a, struct view_reply *r);

#endif
