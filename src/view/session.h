/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.h - what `tally view` holds while it serves one profile: the
 * profile, its function graph with inclusive costs, and the indexes and
 * caches the explorer's questions need (docs/internals/view.md).
 *
 * A session is built once from the profile the CLI read (one part: the
 * inputs added up) and then only read: every answer is computed from it
 * or from a cache that the session owns. The server asks one question at
 * a time (server.c), so nothing here locks.
 *
 * Function ids are the profile's function indexes: stable for the life of
 * the server, so a URL that names one can be sent to a colleague who
 * opens the same files.
 */
#ifndef TALLY_VIEW_SESSION_H
#define TALLY_VIEW_SESSION_H
#include <stddef.h>
#include <stdint.h>
#include "vgraph.h"
#include "../analysis/stacks.h"
#include "../model/error.h"
#include "../model/profile.h"
#include "../model/strtab.h"

#define VIEW_NO_NODE UINT32_MAX
#define VIEW_ORDER_CACHE 4
#define VIEW_BLOB_CACHE 32

struct view_config {
    const char *title;       /* the page's title; NULL = "tally view: CMD" */
    struct strlist inputs;   /* the input files, as given */
    struct strlist include;  /* directories searched for source files (-I) */
    const char *editor;      /* link template with {path} and {line}, or NULL */
    unsigned dot_timeout_ms; /* the call graph's `dot` is stopped after it */
};

/* One sorted and filtered function table, kept for paging. */
struct view_order {
    char *key;       /* the question it answers (event, sort, direction, regex) */
    uint32_t *nodes; /* [n] graph nodes in table order */
    size_t n;
    tally_wide *match_self; /* [ncols] self costs of the rows summed */
    uint64_t used;          /* last use, for replacing the oldest */
};

/* A finished answer kept for the same question (pictures). */
struct view_blob {
    char *key;
    char *body;
    size_t len;
    int status;
    uint64_t used;
};

struct view_session {
    struct profile *p; /* owned */
    const struct part *pt;
    struct view_config cfg; /* owned copies */
    struct vgraph g;        /* part 0, one column per base event */
    size_t nfn;             /* functions of the profile */
    uint32_t *node_of;      /* [nfn] graph node of each function, or VIEW_NO_NODE */
    /* the records of each function: cost records of node v are
       cost_idx[cost_start[v] .. cost_start[v + 1]), call records it makes
       call_idx[call_start[v] .. call_start[v + 1]); built at first use */
    size_t *cost_start, *call_start;
    uint32_t *cost_idx, *call_idx;
    /* the stack tree of each event, built at first use */
    struct stack_tree *stacks; /* [ncols] */
    char *stacks_built;        /* [ncols] 1 = built, -1 = failed */
    struct view_order orders[VIEW_ORDER_CACHE];
    struct view_blob blobs[VIEW_BLOB_CACHE];
    uint64_t clock;
};

/*
 * Take the profile (it must hold one part) and build the graph. Returns
 * the session, or NULL with err (the profile is then freed).
 */
struct view_session *view_session_new(struct profile *p, const struct view_config *cfg,
                                      struct tally_error *err);
void view_session_free(struct view_session *s);

/* The node of function id, or VIEW_NO_NODE (no such function, or no cost). */
uint32_t view_node(const struct view_session *s, uint64_t id);

/* Build the per-function record indexes (once). */
void view_index_records(struct view_session *s);

/*
 * The function table for `ev`, sorted by `sort` (0 incl, 1 self, 2 calls,
 * 3 name, 4 object, 5 file), descending when `desc`, the rows whose name
 * the PCRE2 regex `q` (NULL or "" = every row) matches. The table stays
 * in the session's cache. Returns it, or NULL with err (a bad regex).
 */
const struct view_order *view_order_get(struct view_session *s, size_t ev, int sort, int desc,
                                        const char *q, struct tally_error *err);

/*
 * The stack tree of event ev (pruned at VIEW_FLAME_PRUNE of the total),
 * or NULL with err (a profile whose stacks cannot be built, e.g. signed).
 */
/* A kept answer to the question `key`, or NULL. */
const struct view_blob *view_blob_get(struct view_session *s, const char *key);
/* Keep a copy of an answer (replacing the one used longest ago). */
void view_blob_put(struct view_session *s, const char *key, const char *body, size_t len,
                   int status);

#define VIEW_FLAME_PRUNE 0.0005
const struct stack_tree *view_stacks(struct view_session *s, size_t ev, struct tally_error *err);

#endif
