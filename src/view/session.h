/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.h - what `tally view` holds while it serves: the profile with
 * its parts (dumps, threads, inputs), and for each selection of parts the
 * page has asked about, the function graph with inclusive costs and the
 * indexes and caches the explorer's questions need
 * (docs/internals/view.md).
 *
 * A selection is one part of the profile or several, added up as its
 * graph is made (vgraph.h): no part holding their sum is made. Function
 * ids (the profile's function indexes) are the same in every selection.
 * The session keeps the last VIEW_SELECTIONS selections. The server asks
 * one question at a time
 * (server.c), so nothing here locks.
 *
 * Function ids are stable for the life of the server, so a URL that
 * names one can be sent to a colleague who opens the same files.
 */
#ifndef TALLY_VIEW_SESSION_H
#define TALLY_VIEW_SESSION_H
#include <stddef.h>
#include <stdint.h>
#include "vgraph.h"
#include "../analysis/complexity.h"
#include "../analysis/stacks.h"
#include "../model/error.h"
#include "../model/profile.h"
#include "../model/strtab.h"

#define VIEW_NO_NODE UINT32_MAX
#define VIEW_ORDER_CACHE 4
#define VIEW_BLOB_CACHE 32
#define VIEW_SELECTIONS 3

/* The parts packed as they were read (view_pack_part()), for the session. */
struct view_packer {
    struct vstore *st; /* [n]: st[i].fn is NULL for a part not packed */
    size_t n, cap;
};

/*
 * read_options.part_done for the view: pack part `part` of p into the
 * packer `ctx` and free its records (memory then holds one part's records
 * at a time while a file is read). A part that cannot be packed keeps its
 * records: the session packs it, and says what is wrong.
 */
void view_pack_part(void *ctx, struct profile *p, size_t part);
void view_packer_release(struct view_packer *pk);

struct view_config {
    const char *title;       /* the page's title; NULL = "tally view: CMD" */
    struct strlist inputs;   /* the input files, as given */
    struct strlist include;  /* directories searched for source files (-I) */
    const char *editor;      /* link template with {path} and {line}, or NULL */
    unsigned dot_timeout_ms; /* the call graph's `dot` is stopped after it */
    /* an input-sensitive profile of the run and its analysis, or NULL;
       the session takes both (complexity_release(), isprof_release()) */
    struct isprof *isprof;
    struct complexity *complexity;
    struct view_packer *packed; /* parts packed while read, or NULL; taken */
    /* the profile compared with (--base: one part), or NULL; taken */
    struct profile *base;
    struct strlist base_inputs;
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

struct view_session;

/* The parts the page looks at, and everything computed for them. */
struct view_sel {
    struct view_session *ses;
    const struct profile *p;
    char *key;     /* the parts, "0,2,5" (every part: "all"); NULL = unused */
    size_t *parts; /* their indexes in p->parts */
    size_t nparts;
    struct vgraph g;   /* their sum; one column per base event of the first */
    uint32_t *base_of; /* [nnodes] the node of the same function in the base, or
                          VIEW_NO_NODE; NULL without a base */
    /* the stack tree of each event, built at first use */
    struct stack_tree *stacks; /* [ncols] */
    char *stacks_built;        /* [ncols] 1 = built, -1 = failed */
    struct view_order orders[VIEW_ORDER_CACHE];
    struct view_blob blobs[VIEW_BLOB_CACHE];
    uint64_t used;
};

struct view_session {
    struct profile *p;     /* owned; its parts' records are packed into stores and freed */
    struct vstore *stores; /* [nparts] */
    size_t nparts;         /* the parts as read (sums made later follow them) */
    int first_only;        /* the parts count different events: no `parts` means part 0 */
    struct view_config cfg;
    struct view_sel sels[VIEW_SELECTIONS];
    uint64_t clock;
    /* with a base: its graph, the base event of each event (SIZE_MAX when
       the base has none of that name), the function of the profile of
       each base function, and the base's stack trees */
    struct vstore base_store;
    uint32_t *extra; /* the functions only the base has: nodes of every selection */
    size_t nextra;
    struct vgraph base_g;
    size_t *base_ev;
    uint32_t *base_map; /* [base functions] the profile's function of each (UINT32_MAX: none) */
    struct stack_tree *base_stacks;
    char *base_stacks_built;
};

/*
 * Take the profile (one part or several) and build the selection of
 * every part. Returns the session, or NULL with err (the profile is then
 * freed).
 */
struct view_session *view_session_new(struct profile *p, const struct view_config *cfg,
                                      struct tally_error *err);
void view_session_free(struct view_session *s);

/*
 * The selection of the parts listed in `parts` ("0,2,5": indexes into the
 * parts as read, any order; "all": every part; NULL or "": every part, or
 * part 0 when the parts count different events), made when
 * new. Returns it, or NULL with err (a bad list; parts whose events
 * differ; a sum that overflows).
 */
struct view_sel *view_select(struct view_session *s, const char *parts, struct tally_error *err);

/* The cost of base node b in the base event of event e (0 when the base
   has no such node or event). */
tally_wide view_base_self(const struct view_session *s, uint32_t b, size_t e);
tally_wide view_base_incl(const struct view_session *s, uint32_t b, size_t e);
/* The base's stack tree of the base event of ev, or NULL. */
const struct stack_tree *view_base_stacks(struct view_session *s, size_t ev);

/* A label for part i: "thread 2", "part 3", "pid 42", "input 2"... */
void view_part_label(const struct view_session *s, size_t i, char *buf, size_t size);

/* The node of function id, or VIEW_NO_NODE (no such function, or no cost). */
uint32_t view_node(const struct view_sel *s, uint64_t id);

/*
 * The function table for `ev`, sorted by `sort` (0 incl, 1 self, 2 calls,
 * 3 name, 4 object, 5 file, 6 the change of incl from the base), descending when `desc`, the rows
 * whose name the PCRE2 regex `q` (NULL or "" = every row) matches. The table stays in the
 * selection's cache. Returns it, or NULL with err (a bad regex).
 */
const struct view_order *view_order_get(struct view_sel *s, size_t ev, int sort, int desc,
                                        const char *q, struct tally_error *err);

/* A kept answer to the question `key`, or NULL. */
const struct view_blob *view_blob_get(struct view_sel *s, const char *key);
/* Keep a copy of an answer (replacing the one used longest ago). */
void view_blob_put(struct view_sel *s, const char *key, const char *body, size_t len, int status);

/*
 * The stack tree of event ev (pruned at VIEW_FLAME_PRUNE of the total),
 * or NULL with err (a profile whose stacks cannot be built, e.g. signed).
 */
#define VIEW_FLAME_PRUNE 0.0005
const struct stack_tree *view_stacks(struct view_sel *s, size_t ev, struct tally_error *err);

#endif
