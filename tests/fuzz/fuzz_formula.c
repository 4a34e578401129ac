/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for the cost formulas (model/formula.c): the input is
 * a definition NAME=FORMULA, added to an event set of the cache and branch
 * events. A refusal must say why and leave the set as it was; an accepted
 * definition must be an expression of distinct base events, the same as
 * the set then gives by name, and its text, written back as a sum of its
 * terms, must define the same expression again.
 */
#include "model/eventset.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char base[] = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim";

static int same_expr(const struct event_expr *a, const struct event_expr *b, size_t n)
{
    int64_t fa[16] = {0}, fb[16] = {0};
    for (size_t k = 0; k < a->nterms; k++)
        fa[a->terms[k].event] += a->terms[k].factor;
    for (size_t k = 0; k < b->nterms; k++)
        fb[b->terms[k].event] += b->terms[k].factor;
    return !memcmp(fa, fb, n * sizeof(int64_t));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    if (strlen(text) != size) { /* a NUL inside: not a command-line text */
        free(text);
        return 0;
    }
    struct eventset es;
    struct tally_error err;
    tally_error_clear(&err);
    eventset_init(&es);
    if (eventset_set_base(&es, base, sizeof base - 1, &err) || eventset_finish(&es, &err)) abort();
    size_t nd = es.nderived;
    if (eventset_add_definition(&es, text, &err)) {
        if (!err.msg[0] || es.nderived != nd) abort();
        eventset_release(&es);
        free(text);
        return 0;
    }
    const struct derived_event *d = &es.derived[nd];
    for (size_t k = 0; k < d->expr.nterms; k++) {
        if (d->expr.terms[k].event >= es.n || !d->expr.terms[k].factor) abort();
        for (size_t j = 0; j < k; j++)
            if (d->expr.terms[j].event == d->expr.terms[k].event) abort();
    }
    struct event_expr e;
    if (eventset_lookup(&es, d->name, &e) || !same_expr(&e, &d->expr, es.n)) abort();
    event_expr_release(&e);
    /* written back: Again=f1*E1+f2*E2+... (0*Ir first, so no term is 0); a factor of -2^63
       cannot be written as a number, and the input may have taken the name */
    for (size_t k = 0; k < d->expr.nterms + 1; k++)
        if (k == d->expr.nterms ? !strcmp(d->name, "Again")
                                : d->expr.terms[k].factor == INT64_MIN) {
            eventset_release(&es);
            free(text);
            return 0;
        }
    size_t cap = 64 + d->expr.nterms * 48, len = 0;
    char *again = malloc(cap);
    len += (size_t)snprintf(again + len, cap - len, "Again=0*Ir");
    for (size_t k = 0; k < d->expr.nterms; k++)
        len +=
            (size_t)snprintf(again + len, cap - len, "+(%lld)*%s",
                             (long long)d->expr.terms[k].factor, es.names[d->expr.terms[k].event]);
    if (eventset_add_definition(&es, again, &err)) abort();
    if (!same_expr(&es.derived[nd + 1].expr, &d->expr, es.n)) abort();
    free(again);
    eventset_release(&es);
    free(text);
    return 0;
}
