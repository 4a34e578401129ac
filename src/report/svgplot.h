/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * svgplot.h - small self-contained SVG charts: series of (x, y) points on
 * linear or logarithmic axes, sampled curves, a legend and a tooltip per
 * point (an SVG <title>, which browsers show on hover). No scripts, no
 * external fonts or style sheets: the file is complete on its own.
 *
 * Build a plot with svgplot_new(), add series and curves (data are
 * copied), write it with svgplot_write(), free it with svgplot_free().
 *
 * Axis ranges cover every series point (curves do not widen them; they are
 * clipped to the plot area). A linear axis starts at 0 when every value
 * is non-negative. On a logarithmic axis, points whose value is not
 * positive cannot be placed: they are left out, and a note at the bottom
 * of the picture says how many values were. Ticks are 1-2-5 steps on linear
 * axes and powers of ten on logarithmic ones, labelled with SI suffixes
 * (k, M, G, T, P, E).
 */
#ifndef TALLY_REPORT_SVGPLOT_H
#define TALLY_REPORT_SVGPLOT_H

#include <stddef.h>
#include <stdio.h>

#include "../model/error.h"

enum svgplot_style {
    SVGPLOT_POINTS, /* a marker per point */
    SVGPLOT_STEMS,  /* a vertical bar from the x axis up to each point, with a marker */
    SVGPLOT_LINE,   /* points joined in x order, with markers */
};

struct svgplot_options {
    /* The title (bold) and the subtitle are wrapped to the picture's width,
       the title on up to 3 lines and the subtitle on up to 4, breaking after
       spaces, commas, "::", '(' and '<' (and at a newline); what does not fit
       in the last line is shortened in its middle with an ellipsis. The
       header grows with its lines, the plot area shrinks. */
    const char *title;     /* or NULL */
    const char *title_tip; /* the whole title, a tooltip of the shown one (NULL: title) */
    const char *subtitle;  /* e.g. a formula, or NULL */
    const char *xlabel;    /* axis captions, or NULL */
    const char *ylabel;
    int logx, logy; /* logarithmic axes */
    unsigned width; /* picture size in pixels; 0 = 720 x 450 */
    unsigned height;
    int fragment; /* no XML prolog (for inline use in HTML) */
};

struct svgplot;

/* A new empty plot; the option strings are copied. */
struct svgplot *svgplot_new(const struct svgplot_options *o);

/*
 * Add a series of n points in colour `color` (any SVG colour, e.g.
 * "#d62728"), named `name` in the legend. `tips` (NULL for automatic
 * "name: x = X, y = Y" texts) gives each point's tooltip. Everything is
 * copied. Non-finite values are left out.
 */
void svgplot_add_series(struct svgplot *p, const char *name, const char *color,
                        enum svgplot_style style, const double *x, const double *y, size_t n,
                        const char *const *tips);

/* Marker radius in pixels of the series added last (default 3). */
void svgplot_set_radius(struct svgplot *p, double r);

/*
 * Add a curve y = f(x, ctx), sampled at 256 points across the x range
 * (evenly in log space on a logarithmic x axis), drawn as a line and
 * named `name` in the legend. Samples that are not finite (or not
 * positive on a logarithmic y axis) break the line.
 */
void svgplot_add_curve(struct svgplot *p, const char *name, const char *color,
                       double (*f)(double x, const void *ctx), const void *ctx);

/*
 * Draw the curve added last only for x in [lo, hi] (within the axis), and
 * dashed when `dashed`.
 */
void svgplot_set_curve_range(struct svgplot *p, double lo, double hi, int dashed);

/*
 * An estimate, never short by much, of the width in pixels of the first
 * len bytes of s (SIZE_MAX: all) in the sans-serif family at `size`
 * pixels, bold or not. Characters beyond ASCII count a full em.
 */
double svgplot_text_width(const char *s, size_t len, double size, int bold);

/* Write the SVG document to fp. 0, or -1 with err when the stream fails. */
int svgplot_write(const struct svgplot *p, FILE *fp, struct tally_error *err);

void svgplot_free(struct svgplot *p);

/* v with an SI suffix and at most 3 significant digits ("1.5M", "250", "0.02"). */
char *svgplot_format_number(double v, char *buf, size_t size);

#endif
