/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * eventset.h - the events a part counts.
 *
 * Base events are the ones cost lines carry, in `events:` order; a cost
 * vector holds one unsigned 64-bit count per base event. Derived events
 * (`event: Sum = Ir + 2 Dr`) are computed from base events with integer
 * factors; they are never stored. Any event may have a long name
 * (`event: Ir : Instruction Fetches`).
 *
 * Building: eventset_define() for each `event:` line (any order), then
 * eventset_set_base() with the `events:` names, then eventset_finish() to
 * resolve formulas (a derived event may refer to other derived events;
 * loops and unknown names are errors). All strings are owned.
 */
#ifndef TALLY_EVENTSET_H
#define TALLY_EVENTSET_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct event_term {
    int64_t factor;
    size_t event; /* base event index */
};

/* A base or derived event expressed as a sum of base events. */
struct event_expr {
    size_t nterms;
    struct event_term *terms; /* owned */
};

struct derived_event {
    char *name;
    char *long_name;        /* NULL when none */
    char *formula;          /* the text after '=', trimmed */
    struct event_expr expr; /* filled by eventset_finish() */
};

struct eventset {
    size_t n;          /* number of base events */
    char **names;      /* [n] short names */
    char **long_names; /* [n] long names, entries NULL when none */
    size_t nderived, derived_cap;
    struct derived_event *derived;
    /* long names given by `event:` lines for base events seen later */
    struct strlist pending_names, pending_long;
};

void eventset_init(struct eventset *es);
void eventset_release(struct eventset *es);
/* Deep copy of src into dst (dst must be released or fresh). */
void eventset_copy(struct eventset *dst, const struct eventset *src);

/*
 * Parse the text after "event:" (`Name [= Expr] [: Long name]`).
 * Returns 0, or -1 with a message in err (file/line are left to the caller).
 */
int eventset_define(struct eventset *es, const char *text, size_t len, struct tally_error *err);

/* Set the base events from a whitespace-separated list (`events:` value). */
int eventset_set_base(struct eventset *es, const char *text, size_t len, struct tally_error *err);

/* Resolve derived formulas and long names. Returns 0 or -1 with err. */
int eventset_finish(struct eventset *es, struct tally_error *err);

/* Index of a base event, or -1. */
int eventset_index(const struct eventset *es, const char *name);

/* Do the two sets have the same base events in the same order? */
int eventset_same(const struct eventset *a, const struct eventset *b);

/*
 * Express the named event (base or derived) as a sum of base events.
 * Returns 0, or -1 if no such event. `out` must be released with
 * event_expr_release().
 */
int eventset_lookup(const struct eventset *es, const char *name, struct event_expr *out);
void event_expr_release(struct event_expr *e);

/*
 * A sum of counts in the views (annotate, graph, report, JSON): counts are
 * unsigned 64-bit, and a file's self costs of one event stay at or under
 * 2^64-1 (the readers check), but inclusive costs, derived events and diffs
 * (signed) need more: 128 bits, signed, never wrap for any file a reader
 * accepts. Aligned like uint64_t, so it can live in rectab records.
 */
typedef __int128 tally_wide __attribute__((aligned(8)));
/* Decimal text of v ("-123"); buf holds TALLY_WIDE_DIGITS bytes. Returns buf. */
#define TALLY_WIDE_DIGITS 48
char *tally_wide_str(tally_wide v, char *buf);

/*
 * Evaluate an expression on a cost vector. With is_signed the costs are
 * read as two's complement int64. Returns 0, or -1 on overflow (never for
 * 64-bit costs and factors: a term is below 2^127).
 */
int event_expr_eval(const struct event_expr *e, const uint64_t *costs, int is_signed,
                    tally_wide *out);

/* All base names joined by single spaces (caller frees). */
char *eventset_join(const struct eventset *es);
/*
 * The same for messages, kept short: at most about 160 bytes of names
 * (a long name is cut with "..."), then "... (N events)", so a message
 * that quotes two event lists always fits and still names its files.
 */
char *eventset_join_brief(const struct eventset *es);

#endif
