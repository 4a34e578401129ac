/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * eventset.h - the events a part counts.
 *
 * Base events are the ones cost lines carry, in `events:` order; a cost
 * vector holds one unsigned 64-bit count per base event. Derived events
 * (`event: Sum = Ir + 2 Dr`, or a command's `--event 'Cyc=Ir+10*I1mr'`)
 * are computed from base events with integer factors; they are never
 * stored. Any event may have a long name (`event: Ir : Instruction Fetches`).
 *
 * Formulas (formula.c, the one parser): sums, differences and products of
 * events and whole numbers, with parentheses; a product may be written
 * without '*' (`10 I1mr`, as callgrind files do). A formula must come out
 * as a weighted sum of events (no product of two events, no number left
 * alone), the only kind of cost that adds up over lines and calls. A
 * formula names base events, derived events of the set, or built-in
 * events: KCachegrind's L1m, L2m, LLm, Bm and CEst (its cycle estimate),
 * and Cyc (the same as CEst). In a built-in formula an event the profile
 * lacks counts 0, and a built-in exists only when the profile has at least
 * one of its events (KCachegrind's rule).
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
 * Express the named event (base, derived or built-in) as a sum of base
 * events. Returns 0, or -1 if no such event. `out` must be released with
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

/*
 * The formula of event `name` (for messages) as a sum of es's base events.
 * Returns 0, or -1 with err (syntax, a product of events, an unknown event,
 * a loop, a factor past 2^63). `out` is released by the caller on success.
 */
int eventset_formula_expr(const struct eventset *es, const char *name, const char *formula,
                          struct event_expr *out, struct tally_error *err);

/*
 * The built-in event `name` for es: 0 and its expression, or -1 when it is
 * no built-in or es has none of its events. The events it names that es
 * lacks (counted 0) are appended to `absent` (may be NULL).
 */
int eventset_builtin_expr(const struct eventset *es, const char *name, struct event_expr *out,
                          struct strlist *absent);

/* The i-th built-in: its formula, name and long name; NULL past the last. */
const char *eventset_builtin_formula(size_t i, const char **name, const char **long_name);

/*
 * A definition `NAME=FORMULA` (a command's --event): has it a name and a
 * formula? (The formula itself is read against the profile's events, by
 * eventset_add_definition().) Returns 0, or -1 with err.
 * event_definition_name() gives NAME (caller frees), or -1 when text is no
 * definition.
 */
int event_definition_check(const char *text, struct tally_error *err);
int event_definition_name(const char *text, char **name);

/*
 * Add the definition `NAME=FORMULA` to es as a derived event (after
 * eventset_finish()). NAME must not be an event of es already (a built-in
 * may be redefined). Returns 0, or -1 with err and es unchanged.
 */
int eventset_add_definition(struct eventset *es, const char *text, struct tally_error *err);

/* All base names joined by single spaces (caller frees). */
char *eventset_join(const struct eventset *es);
/*
 * The same for messages, kept short: at most about 160 bytes of names
 * (a long name is cut with "..."), then "... (N events)", so a message
 * that quotes two event lists always fits and still names its files.
 */
char *eventset_join_brief(const struct eventset *es);

#endif
