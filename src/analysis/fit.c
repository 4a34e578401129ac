/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fit.c - cost = a + b * x^c by Levenberg-Marquardt, and the closest of the
 * usual complexity classes.
 *
 * Both fits work on scaled data: x is divided by its largest value (so
 * every scaled x is in (0, 1] and x^c cannot overflow whatever c is) and y
 * is mapped onto [0, 1] by its smallest value and its range. Costs that
 * differ by a few units on top of 10^18 are then as easy to fit as small
 * ones, and the normal equations stay well conditioned. The parameters are
 * mapped back at the end.
 */
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/error.h"

#define LM_MAX_ITER 400     /* steps per start */
#define LM_MIN_ITER 40      /* steps per start however many points */
#define LM_BUDGET 4e6       /* point evaluations per start: fewer steps for huge data */
#define LM_LAMBDA0 1e-3     /* initial damping */
#define LM_LAMBDA_MAX 1e16  /* give up improving beyond this damping */
#define LM_REL_TOL 1e-14    /* stop when a step improves RSS by less (relative) */
#define BIC_RSS_FLOOR 1e-13 /* RSS below this fraction of TSS counts as exact */
#define BIC_TIE 2.0         /* BIC within this of the best: prefer the simpler class */

/* The data after scaling, shared by the fits. */
struct scaled {
    size_t n;
    double *lx;   /* ln(x / xmax) <= 0 */
    double *ys;   /* (y - ymin) / range, in [0, 1] */
    double lxmax; /* ln xmax */
    double ymin;  /* offset of the scaling */
    double range; /* ymax - ymin (> 0 when TSS > 0) */
    double tss;   /* total sum of squares of ys around its mean */
    size_t ndistinct;
};

static double clamp_x(double x)
{
    return x < 1.0 ? 1.0 : x;
}

static int cmp_double(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return u < v ? -1 : u > v;
}

/* Returns FIT_OK, FIT_BAD_DATA or FIT_CONSTANT (range 0); fills s. */
static enum fit_status scale(const double *x, const double *y, size_t n, struct scaled *s)
{
    memset(s, 0, sizeof(*s));
    s->n = n;
    if (n == 0) return FIT_OK;
    double xmax = 1.0, ymin = y[0], ymax = y[0];
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) return FIT_BAD_DATA;
        if (clamp_x(x[i]) > xmax) xmax = clamp_x(x[i]);
        if (y[i] < ymin) ymin = y[i];
        if (y[i] > ymax) ymax = y[i];
    }
    double *sorted = xmalloc(n * sizeof(*sorted));
    for (size_t i = 0; i < n; i++)
        sorted[i] = clamp_x(x[i]);
    qsort(sorted, n, sizeof(*sorted), cmp_double);
    s->ndistinct = 1;
    for (size_t i = 1; i < n; i++)
        if (sorted[i] != sorted[i - 1]) s->ndistinct++;
    free(sorted);

    s->lxmax = log(xmax);
    s->ymin = ymin;
    s->range = ymax - ymin;
    if (!isfinite(s->range)) return FIT_BAD_DATA; /* e.g. -1e308 .. 1e308 */
    s->lx = xmalloc(n * sizeof(*s->lx));
    s->ys = xmalloc(n * sizeof(*s->ys));
    double mean = 0.0;
    for (size_t i = 0; i < n; i++) {
        s->lx[i] = log(clamp_x(x[i])) - s->lxmax;
        s->ys[i] = s->range > 0 ? (y[i] - ymin) / s->range : 0.0;
        mean += s->ys[i];
    }
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        s->tss += (s->ys[i] - mean) * (s->ys[i] - mean);
    return s->range > 0 && s->tss > 0 ? FIT_OK : FIT_CONSTANT;
}

static void scaled_release(struct scaled *s)
{
    free(s->lx);
    free(s->ys);
}

/* ---- the power model on scaled data: ys = A + B * exp(C * lx) ---- */

static double power_rss(const struct scaled *s, const double p[3])
{
    double rss = 0.0;
    for (size_t i = 0; i < s->n; i++) {
        double r = s->ys[i] - (p[0] + p[1] * exp(p[2] * s->lx[i]));
        rss += r * r;
    }
    return isfinite(rss) ? rss : INFINITY;
}

static double clamp_c(double c)
{
    return c < FIT_C_MIN ? FIT_C_MIN : c > FIT_C_MAX ? FIT_C_MAX : c;
}

/* Solve the 3x3 system m v = r by Gaussian elimination with partial pivoting. */
static int solve3(double m[3][3], double r[3], double v[3])
{
    double scale = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (fabs(m[i][j]) > scale) scale = fabs(m[i][j]);
    if (!(scale > 0) || !isfinite(scale)) return -1;
    for (int k = 0; k < 3; k++) {
        int piv = k;
        for (int i = k + 1; i < 3; i++)
            if (fabs(m[i][k]) > fabs(m[piv][k])) piv = i;
        if (fabs(m[piv][k]) <= scale * 1e-15) return -1;
        if (piv != k) {
            for (int j = 0; j < 3; j++) {
                double t = m[k][j];
                m[k][j] = m[piv][j];
                m[piv][j] = t;
            }
            double t = r[k];
            r[k] = r[piv];
            r[piv] = t;
        }
        for (int i = k + 1; i < 3; i++) {
            double f = m[i][k] / m[k][k];
            for (int j = k; j < 3; j++)
                m[i][j] -= f * m[k][j];
            r[i] -= f * r[k];
        }
    }
    for (int k = 2; k >= 0; k--) {
        double t = r[k];
        for (int j = k + 1; j < 3; j++)
            t -= m[k][j] * v[j];
        v[k] = t / m[k][k];
        if (!isfinite(v[k])) return -1;
    }
    return 0;
}

/*
 * Levenberg-Marquardt from p; on return p holds the best parameters seen
 * and *rss their residual sum of squares. Returns the number of steps.
 * Damping is Marquardt's (scaled by the diagonal of J'J, with a floor so a
 * column that vanishes, as dC when B = 0, is still damped).
 */
static unsigned power_lm(const struct scaled *s, double p[3], double *rss)
{
    double lambda = LM_LAMBDA0;
    double cur = power_rss(s, p);
    unsigned steps = 0, max_steps = LM_MAX_ITER;
    if ((double)s->n * LM_MAX_ITER > LM_BUDGET) {
        double m = LM_BUDGET / (double)s->n;
        max_steps = m < LM_MIN_ITER ? LM_MIN_ITER : (unsigned)m;
    }
    while (steps < max_steps && isfinite(cur)) {
        double jtj[3][3] = {{0}}, jtr[3] = {0};
        for (size_t i = 0; i < s->n; i++) {
            double e = exp(p[2] * s->lx[i]);
            double r = s->ys[i] - (p[0] + p[1] * e);
            double j[3] = {1.0, e, p[1] * e * s->lx[i]};
            for (int a = 0; a < 3; a++) {
                jtr[a] += j[a] * r;
                for (int b = 0; b < 3; b++)
                    jtj[a][b] += j[a] * j[b];
            }
        }
        double dmax = fmax(jtj[0][0], fmax(jtj[1][1], jtj[2][2]));
        int improved = 0;
        double next = cur;
        while (lambda <= LM_LAMBDA_MAX) {
            double m[3][3], r[3], d[3], q[3];
            memcpy(m, jtj, sizeof(m));
            memcpy(r, jtr, sizeof(r));
            for (int a = 0; a < 3; a++)
                m[a][a] += lambda * (jtj[a][a] + 1e-9 * dmax);
            if (solve3(m, r, d) == 0) {
                q[0] = p[0] + d[0];
                q[1] = p[1] + d[1];
                q[2] = clamp_c(p[2] + d[2]);
                next = power_rss(s, q);
                if (next < cur) {
                    memcpy(p, q, sizeof(q));
                    lambda = fmax(lambda * 0.1, 1e-15);
                    improved = 1;
                    break;
                }
            }
            lambda *= 10.0;
        }
        steps++;
        if (!improved) break;
        double gain = cur - next;
        cur = next;
        if (gain <= LM_REL_TOL * cur || cur <= 1e-30 * s->tss) break;
    }
    *rss = cur;
    return steps;
}

/*
 * Least squares of ys = A + B * exp(C * lx) for a fixed C; false when the
 * column is constant over the points.
 */
static int power_fixed_c(const struct scaled *s, double c, double p[3])
{
    double mg = 0.0, my = 0.0;
    for (size_t i = 0; i < s->n; i++) {
        mg += exp(c * s->lx[i]);
        my += s->ys[i];
    }
    mg /= (double)s->n;
    my /= (double)s->n;
    double sgg = 0.0, sgy = 0.0;
    for (size_t i = 0; i < s->n; i++) {
        double g = exp(c * s->lx[i]) - mg;
        sgg += g * g;
        sgy += g * (s->ys[i] - my);
    }
    if (!(sgg > 0)) return 0;
    p[1] = sgy / sgg;
    p[0] = my - p[1] * mg;
    p[2] = c;
    return 1;
}

/*
 * Start from a log-log regression: ln(ys - shift) = ln B + C * lx over the
 * points above `shift`; A = shift. False when fewer than two distinct lx.
 */
static int power_loglog(const struct scaled *s, double shift, double p[3])
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++) {
        double v = s->ys[i] - shift;
        if (!(v > 0)) continue;
        double ly = log(v);
        sx += s->lx[i];
        sy += ly;
        sxx += s->lx[i] * s->lx[i];
        sxy += s->lx[i] * ly;
        m++;
    }
    if (m < 2) return 0;
    double den = (double)m * sxx - sx * sx;
    if (!(den > 1e-12 * (double)m * sxx)) return 0;
    double c = ((double)m * sxy - sx * sy) / den;
    double lb = (sy - c * sx) / (double)m;
    p[0] = shift;
    p[1] = exp(lb);
    p[2] = clamp_c(c);
    return isfinite(p[1]);
}

void fit_power(const double *x, const double *y, size_t n, struct fit_power *out)
{
    memset(out, 0, sizeof(*out));
    out->r2 = NAN;
    struct scaled s;
    enum fit_status st = scale(x, y, n, &s);
    if (st == FIT_BAD_DATA) {
        out->status = FIT_BAD_DATA;
    } else if (s.ndistinct < 2) {
        out->status = FIT_TOO_FEW;
    } else if (st == FIT_CONSTANT) {
        out->status = FIT_CONSTANT;
        out->a = y[0];
        out->r2 = 1.0;
    } else if (s.ndistinct < 3) {
        out->status = FIT_TOO_FEW;
    } else {
        /* Candidate starts: two log-log regressions and the best fixed exponent. */
        double starts[3][3];
        int nstarts = 0;
        if (power_loglog(&s, 0.0, starts[nstarts])) nstarts++;
        if (power_loglog(&s, -0.01, starts[nstarts])) nstarts++;
        /* negative exponents too: a cost that falls, or rises and levels off, as n grows */
        static const double grid[] = {-1.0, -0.5, 0.0625, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0};
        double best_grid = INFINITY, q[3];
        for (size_t g = 0; g < sizeof(grid) / sizeof(grid[0]); g++) {
            if (!power_fixed_c(&s, grid[g], q)) continue;
            double r = power_rss(&s, q);
            if (r < best_grid) {
                best_grid = r;
                memcpy(starts[nstarts], q, sizeof(q));
            }
        }
        if (isfinite(best_grid)) nstarts++;

        double best[3] = {0, 0, 0}, best_rss = INFINITY;
        for (int k = 0; k < nstarts; k++) {
            double rss;
            out->iterations += power_lm(&s, starts[k], &rss);
            if (rss < best_rss) {
                best_rss = rss;
                memcpy(best, starts[k], sizeof(best));
            }
        }
        if (!isfinite(best_rss)) {
            out->status = FIT_NO_CONVERGE;
        } else {
            out->status = FIT_OK;
            out->c = best[2];
            out->a = best[0] * s.range + s.ymin;
            /* an offset lost in rounding noise is no offset ("0", not "-1.1e-13") */
            if (fabs(out->a) < 1e-9 * s.range) out->a = 0.0;
            out->b = best[1] * s.range * exp(-best[2] * s.lxmax);
            out->r2 = 1.0 - best_rss / s.tss;
        }
    }
    scaled_release(&s);
}

double fit_power_eval(const struct fit_power *f, double x)
{
    return f->a + f->b * pow(clamp_x(x), f->c);
}

/* ---- classes ---- */

const char *fit_class_name(enum fit_class k)
{
    static const char *const names[FIT_NCLASSES] = {"1", "log n", "n", "n log n", "n^2", "n^3"};
    return (unsigned)k < FIT_NCLASSES ? names[k] : "?";
}

double fit_class_g(enum fit_class k, double x)
{
    x = clamp_x(x);
    switch (k) {
    case FIT_CLASS_1:
        return 1.0;
    case FIT_CLASS_LOG:
        return log(x);
    case FIT_CLASS_N:
        return x;
    case FIT_CLASS_NLOGN:
        return x * log(x);
    case FIT_CLASS_N2:
        return x * x;
    case FIT_CLASS_N3:
        return x * x * x;
    default:
        return NAN;
    }
}

/* g on scaled x: g(x) / g(xmax), computed from lx = ln(x / xmax). */
static double class_g_scaled(enum fit_class k, double lx, double lxmax)
{
    switch (k) {
    case FIT_CLASS_LOG:
        return (lx + lxmax) / lxmax;
    case FIT_CLASS_N:
        return exp(lx);
    case FIT_CLASS_NLOGN:
        return exp(lx) * (lx + lxmax) / lxmax;
    case FIT_CLASS_N2:
        return exp(2 * lx);
    case FIT_CLASS_N3:
        return exp(3 * lx);
    default:
        return 1.0;
    }
}

static double bic(size_t n, double rss, double tss, int k)
{
    double floor = BIC_RSS_FLOOR * tss;
    if (rss < floor) rss = floor;
    return (double)n * log(rss / (double)n) + k * log((double)n);
}

void fit_classes(const double *x, const double *y, size_t n, struct fit_classes *out)
{
    memset(out, 0, sizeof(*out));
    out->best = FIT_CLASS_1;
    struct scaled s;
    enum fit_status st = scale(x, y, n, &s);
    if (st == FIT_BAD_DATA || n == 0) {
        out->status = n == 0 ? FIT_TOO_FEW : FIT_BAD_DATA;
        scaled_release(&s);
        return;
    }
    if (s.ndistinct < 2) {
        out->status = FIT_TOO_FEW;
        scaled_release(&s);
        return;
    }
    if (st == FIT_CONSTANT) {
        out->status = FIT_CONSTANT;
        out->fit[FIT_CLASS_1] = (struct fit_class_fit){1, y[0], 0.0, 1.0, -INFINITY};
        scaled_release(&s);
        return;
    }
    out->status = FIT_OK;
    double my = 0.0;
    for (size_t i = 0; i < n; i++)
        my += s.ys[i];
    my /= (double)n;
    out->fit[FIT_CLASS_1] =
        (struct fit_class_fit){1, my * s.range + s.ymin, 0.0, 0.0, bic(n, s.tss, s.tss, 1)};
    for (int k = FIT_CLASS_LOG; k < FIT_NCLASSES; k++) {
        struct fit_class_fit *f = &out->fit[k];
        double mg = 0.0;
        for (size_t i = 0; i < n; i++)
            mg += class_g_scaled(k, s.lx[i], s.lxmax);
        mg /= (double)n;
        double sgg = 0.0, sgy = 0.0;
        for (size_t i = 0; i < n; i++) {
            double g = class_g_scaled(k, s.lx[i], s.lxmax) - mg;
            sgg += g * g;
            sgy += g * (s.ys[i] - my);
        }
        if (!(sgg > 1e-300)) continue;
        double b = sgy / sgg, a = my - b * mg;
        if (b < 0) continue; /* a decreasing cost is not growth of this class */
        double rss = 0.0;
        for (size_t i = 0; i < n; i++) {
            double r = s.ys[i] - (a + b * class_g_scaled(k, s.lx[i], s.lxmax));
            rss += r * r;
        }
        f->valid = 1;
        f->r2 = 1.0 - rss / s.tss;
        f->bic = bic(n, rss, s.tss, 2);
        /* Back from scaled units: g_scaled = g / g(xmax). */
        double gmax = fit_class_g(k, exp(s.lxmax));
        f->a = a * s.range + s.ymin;
        if (fabs(f->a) < 1e-9 * s.range) f->a = 0.0; /* rounding noise, as in fit_power */
        f->b = b * s.range / gmax;
    }
    double best_bic = INFINITY;
    for (int k = 0; k < FIT_NCLASSES; k++)
        if (out->fit[k].valid && out->fit[k].bic < best_bic) best_bic = out->fit[k].bic;
    for (int k = 0; k < FIT_NCLASSES; k++) {
        if (out->fit[k].valid && out->fit[k].bic <= best_bic + BIC_TIE) {
            out->best = k;
            break;
        }
    }
    scaled_release(&s);
}
