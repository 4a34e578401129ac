/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fitcheck.c - the checks made before a routine's points get a complexity
 * class (see fitcheck.h and docs/internals/complexity.md).
 *
 * Clusters are looked for in log space, u = ln n and v = ln(cost + 1),
 * where "a factor of 3 apart" is the same distance at every size: for k
 * from 2 to FITCHECK_MAX_CLUSTERS the points are split in k groups, each
 * with its own line v = c0 + c1 u (a power law), by alternating fits and
 * assignments from several starting splits. A split counts when its lines
 * leave a small part of what one smooth curve leaves and every two of its
 * groups are far apart at the sizes where both have points; the largest
 * such k is the number of clusters.
 *
 * The class is then chosen among the models refitted in relative terms
 * (least squares weighted by 1 / cost^2), because the fits of fit.c are
 * unweighted: under noise that grows with the cost, their intercepts
 * follow the noise of the largest sizes, and a comparison of them would
 * let the free exponent win by chance.
 */
#include "fitcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/error.h"

#define CLUSTER_RSS_SHARE 0.1 /* the clusters' lines leave at most this of one curve's RSS */
#define CLUSTER_SPREAD 4.0    /* lines at least this many residual deviations apart */
#define CLUSTER_ITER 50       /* alternations of fit and assignment */
#define SAMPLE_MAX 8192       /* searches on more points use every k-th of them */

struct obs {
    double x, y; /* the point (x below 1 as 1) */
    double u, v; /* ln x, ln(max(y, 0) + 1) */
};

struct line {
    double c0, c1; /* v = c0 + c1 u */
};

static double line_at(const struct line *l, double u)
{
    return l->c0 + l->c1 * u;
}

/*
 * At most SAMPLE_MAX of the m points, evenly spread in size order: one of
 * every k, at an offset that varies from one run of k to the next (a fixed
 * one would see only the points of one phase of a periodic pattern, such
 * as calls that throw at every third size). The same every time. A new
 * array (its count in *ms) or, when m is small enough, o itself.
 */
static const struct obs *sample(const struct obs *o, size_t m, size_t *ms)
{
    if (m <= SAMPLE_MAX) {
        *ms = m;
        return o;
    }
    size_t step = (m + SAMPLE_MAX - 1) / SAMPLE_MAX, k = 0;
    struct obs *s = xmalloc((m / step + 1) * sizeof(*s));
    unsigned seed = 12345u;
    for (size_t i = 0; i < m; i += step) {
        seed = seed * 1103515245u + 12345u;
        size_t span = m - i < step ? m - i : step;
        s[k++] = o[i + (seed >> 8) % span];
    }
    *ms = k;
    return s;
}

static int cmp_obs(const void *pa, const void *pb)
{
    const struct obs *a = pa, *b = pb;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    return a->y < b->y ? -1 : a->y > b->y;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* ---- least squares in (u, v) ---- */

/*
 * The line through the points whose label is `which` (all of them when lab
 * is NULL). Slope 0 when their u are all equal. Returns the number of
 * points used.
 */
static size_t line_fit(const struct obs *o, size_t m, const unsigned char *lab, int which,
                       struct line *l)
{
    double su = 0, sv = 0;
    size_t cnt = 0;
    for (size_t i = 0; i < m; i++) {
        if (lab && lab[i] != which) continue;
        su += o[i].u;
        sv += o[i].v;
        cnt++;
    }
    l->c0 = l->c1 = 0;
    if (!cnt) return 0;
    double mu = su / (double)cnt, mv = sv / (double)cnt, suu = 0, suv = 0;
    for (size_t i = 0; i < m; i++) {
        if (lab && lab[i] != which) continue;
        double du = o[i].u - mu;
        suu += du * du;
        suv += du * (o[i].v - mv);
    }
    l->c1 = suu > 1e-18 * (double)cnt ? suv / suu : 0.0;
    l->c0 = mv - l->c1 * mu;
    return cnt;
}

/* Solve the 3x3 system a q = r (partial pivoting); -1 when singular. */
static int solve3x3(double a[3][3], double r[3], double q[3])
{
    for (int k = 0; k < 3; k++) {
        int p = k;
        for (int i = k + 1; i < 3; i++)
            if (fabs(a[i][k]) > fabs(a[p][k])) p = i;
        if (!(fabs(a[p][k]) > 1e-12)) return -1;
        for (int j = 0; j < 3; j++) {
            double t = a[k][j];
            a[k][j] = a[p][j];
            a[p][j] = t;
        }
        double t = r[k];
        r[k] = r[p];
        r[p] = t;
        for (int i = k + 1; i < 3; i++) {
            double f = a[i][k] / a[k][k];
            for (int j = k; j < 3; j++)
                a[i][j] -= f * a[k][j];
            r[i] -= f * r[k];
        }
    }
    for (int k = 2; k >= 0; k--) {
        double t = r[k];
        for (int j = k + 1; j < 3; j++)
            t -= a[k][j] * q[j];
        q[k] = t / a[k][k];
        if (!isfinite(q[k])) return -1;
    }
    return 0;
}

/*
 * The residuals res[i] of the best quadratic v = q0 + q1 t + q2 t^2 in t
 * (u mapped onto [-1, 1]), and their sum of squares: one smooth curve in
 * log space, close to a power law, a power law with an offset, or log n.
 */
static double quad_rss(const struct obs *o, size_t m, double *res)
{
    double mid = (o[0].u + o[m - 1].u) / 2, half = (o[m - 1].u - o[0].u) / 2;
    double q[3] = {0, 0, 0};
    int ok = 0;
    if (half > 0) {
        double s[5] = {0}, r[3] = {0};
        for (size_t i = 0; i < m; i++) {
            double t = (o[i].u - mid) / half, tp = 1;
            for (int k = 0; k < 5; k++, tp *= t)
                s[k] += tp;
            r[0] += o[i].v;
            r[1] += o[i].v * t;
            r[2] += o[i].v * t * t;
        }
        double a[3][3] = {{s[0], s[1], s[2]}, {s[1], s[2], s[3]}, {s[2], s[3], s[4]}};
        ok = solve3x3(a, r, q) == 0;
    }
    struct line l;
    if (!ok) line_fit(o, m, NULL, 0, &l);
    double rss = 0;
    for (size_t i = 0; i < m; i++) {
        double t = half > 0 ? (o[i].u - mid) / half : 0;
        double f = ok ? q[0] + t * (q[1] + t * q[2]) : line_at(&l, o[i].u);
        res[i] = o[i].v - f;
        rss += res[i] * res[i];
    }
    return rss;
}

/* ---- clusters ---- */

/*
 * k lines by alternating fits and assignments, from the labels in lab:
 * each point goes to the nearest line, until nothing moves. The RSS, or
 * INFINITY when a cluster falls below FITCHECK_CLUSTER_MIN points.
 */
static double k_lines(const struct obs *o, size_t m, unsigned char *lab, int k, struct line *l)
{
    for (int it = 0; it <= CLUSTER_ITER; it++) {
        for (int c = 0; c < k; c++)
            if (line_fit(o, m, lab, c, &l[c]) < FITCHECK_CLUSTER_MIN) return INFINITY;
        if (it == CLUSTER_ITER) break;
        size_t moved = 0;
        for (size_t i = 0; i < m; i++) {
            int best = lab[i];
            double bd = fabs(o[i].v - line_at(&l[best], o[i].u));
            for (int c = 0; c < k; c++) {
                double d = fabs(o[i].v - line_at(&l[c], o[i].u));
                if (d < bd) {
                    bd = d;
                    best = c;
                }
            }
            if (best != lab[i]) {
                lab[i] = (unsigned char)best;
                moved++;
            }
        }
        if (!moved) break;
    }
    double rss = 0;
    for (size_t i = 0; i < m; i++) {
        double r = o[i].v - line_at(&l[lab[i]], o[i].u);
        rss += r * r;
    }
    return rss;
}

/*
 * How far apart clusters a and b are at similar sizes: the median distance
 * between their lines at the points of either whose size lies within the
 * other's sizes; when their sizes do not overlap (a jump at some size), the
 * mean distance at the two points on either side of the jump. d is scratch
 * space for m values.
 */
static double separation(const struct obs *o, size_t m, const unsigned char *lab, int a, int b,
                         const struct line *l, double *d)
{
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (size_t i = 0; i < m; i++) {
        if (lab[i] != a && lab[i] != b) continue;
        int s = lab[i] == b;
        lo[s] = fmin(lo[s], o[i].u);
        hi[s] = fmax(hi[s], o[i].u);
    }
    size_t nd = 0;
    for (size_t i = 0; i < m; i++) {
        if (lab[i] != a && lab[i] != b) continue;
        int other = lab[i] != b;
        if (o[i].u >= lo[other] && o[i].u <= hi[other])
            d[nd++] = fabs(line_at(&l[a], o[i].u) - line_at(&l[b], o[i].u));
    }
    if (nd) {
        qsort(d, nd, sizeof(*d), cmp_double);
        return nd % 2 ? d[nd / 2] : (d[nd / 2 - 1] + d[nd / 2]) / 2;
    }
    int low = hi[0] < lo[1] ? 0 : 1;
    double ua = hi[low], ub = lo[!low];
    return (fabs(line_at(&l[a], ua) - line_at(&l[b], ua)) +
            fabs(line_at(&l[a], ub) - line_at(&l[b], ub))) /
           2;
}

/* Starting labels: k groups of sorted residuals, cut at the k - 1 widest gaps. */
static void start_gaps(const double *res, size_t m, int k, unsigned char *lab, double *s)
{
    memcpy(s, res, m * sizeof(*s));
    qsort(s, m, sizeof(*s), cmp_double);
    double cut[FITCHECK_MAX_CLUSTERS - 1];
    int ncut = 0;
    for (int c = 0; c < k - 1; c++) {
        double gap = -1, at = s[m / 2];
        for (size_t i = FITCHECK_CLUSTER_MIN; i + FITCHECK_CLUSTER_MIN <= m; i++) {
            double mid = (s[i] + s[i - 1]) / 2;
            int taken = 0;
            for (int j = 0; j < ncut; j++)
                taken |= cut[j] == mid;
            if (!taken && s[i] - s[i - 1] > gap) {
                gap = s[i] - s[i - 1];
                at = mid;
            }
        }
        cut[ncut++] = at;
    }
    for (size_t i = 0; i < m; i++) {
        int g = 0;
        for (int j = 0; j < ncut; j++)
            g += res[i] > cut[j];
        lab[i] = (unsigned char)g;
    }
}

/* Starting labels: k groups of equal counts of sorted residuals. */
static void start_quantiles(const double *res, size_t m, int k, unsigned char *lab, double *s)
{
    memcpy(s, res, m * sizeof(*s));
    qsort(s, m, sizeof(*s), cmp_double);
    for (size_t i = 0; i < m; i++) {
        int g = 0;
        for (int j = 1; j < k; j++)
            g += res[i] >= s[m * (size_t)j / (size_t)k];
        lab[i] = (unsigned char)g;
    }
}

/*
 * Starting labels: the sizes below and from the point where two lines, one
 * on each side, fit best (a jump at some size). Prefix sums make it one pass.
 */
static void start_step(const struct obs *o, size_t m, unsigned char *lab)
{
    double *cum = xcalloc(5 * (m + 1), sizeof(*cum)); /* n, u, v, uu, uv per prefix */
    for (size_t i = 0; i < m; i++) {
        const double *c = cum + 5 * i;
        double *n = cum + 5 * (i + 1);
        n[0] = c[0] + 1;
        n[1] = c[1] + o[i].u;
        n[2] = c[2] + o[i].v;
        n[3] = c[3] + o[i].u * o[i].u;
        n[4] = c[4] + o[i].u * o[i].v;
    }
    /* a line leaves Svv - Sv^2 / n - Suv'^2 / Suu' (primes: centred sums); Svv is the
       same for every split, so the best split makes the rest largest */
    size_t best = m / 2;
    double best_gain = -INFINITY;
    for (size_t k = FITCHECK_CLUSTER_MIN; k + FITCHECK_CLUSTER_MIN <= m; k++) {
        double gain = 0;
        for (int side = 0; side < 2; side++) {
            const double *a = side ? cum + 5 * k : cum, *b = side ? cum + 5 * m : cum + 5 * k;
            double n = b[0] - a[0], su = b[1] - a[1], sv = b[2] - a[2];
            double suu = b[3] - a[3] - su * su / n, suv = b[4] - a[4] - su * sv / n;
            gain += sv * sv / n + (suu > 1e-18 * n ? suv * suv / suu : 0);
        }
        if (gain > best_gain) {
            best_gain = gain;
            best = k;
        }
    }
    for (size_t i = 0; i < m; i++)
        lab[i] = i >= best;
    free(cum);
}

/* Starting labels: `prev` (k - 1 groups) with its widest group split by the sign of its residuals.
 */
static void start_split(const struct obs *o, size_t m, const unsigned char *prev, int k,
                        unsigned char *lab)
{
    struct line l[FITCHECK_MAX_CLUSTERS];
    double rss[FITCHECK_MAX_CLUSTERS] = {0};
    for (int c = 0; c < k - 1; c++)
        line_fit(o, m, prev, c, &l[c]);
    for (size_t i = 0; i < m; i++) {
        double r = o[i].v - line_at(&l[prev[i]], o[i].u);
        rss[prev[i]] += r * r;
    }
    int w = 0;
    for (int c = 1; c < k - 1; c++)
        if (rss[c] > rss[w]) w = c;
    for (size_t i = 0; i < m; i++)
        lab[i] = prev[i] == w && o[i].v > line_at(&l[w], o[i].u) ? (unsigned char)(k - 1) : prev[i];
}

/*
 * Count the clusters of the points (up to FITCHECK_MAX_CLUSTERS); rss0 is
 * the smallest RSS in log space that one curve (a fitted model) leaves.
 * For each k from 2, the best k-line split of several starts is kept when
 * it leaves at most CLUSTER_RSS_SHARE of what one smooth curve leaves and
 * every two of its clusters are FITCHECK_CLUSTER_RATIO and CLUSTER_SPREAD
 * residual deviations apart; the largest such k wins. Fills out->nclusters,
 * out->cluster (lowest cost first), out->cluster_ratio and, when there are
 * clusters, group[i] (the cluster of point i).
 */
static void find_clusters(const struct obs *all, size_t mall, double rss0, unsigned char *group,
                          struct fitcheck *out)
{
    out->nclusters = 1;
    out->cluster_ratio = NAN;
    if (mall < 2 * FITCHECK_CLUSTER_MIN) return;
    /* on many points, the search works on a sample (rss0 scaled to it), and every point
       goes to the nearest line of the clusters found */
    size_t m;
    const struct obs *o = sample(all, mall, &m);
    rss0 *= (double)m / (double)mall;
    double *res = xmalloc(m * sizeof(*res)), *tmp = xmalloc(m * sizeof(*tmp));
    rss0 = fmin(rss0, quad_rss(o, m, res));
    unsigned char *lab = xmalloc(m), *prev = xmalloc(m), *try = xmalloc(m), *keep = xmalloc(m);
    struct line l[FITCHECK_MAX_CLUSTERS], bl[FITCHECK_MAX_CLUSTERS], kl[FITCHECK_MAX_CLUSTERS];
    int have_prev = 0, found = 1;
    double found_ratio = NAN;
    for (int k = 2; k <= FITCHECK_MAX_CLUSTERS && (size_t)k * FITCHECK_CLUSTER_MIN <= m; k++) {
        double best = INFINITY;
        for (int start = 0; start < 5; start++) {
            if (start == 0)
                start_gaps(res, m, k, try, tmp);
            else if (start == 1)
                start_quantiles(res, m, k, try, tmp);
            else if (start == 2 && have_prev)
                start_split(o, m, prev, k, try);
            else if (start == 3 && k == 2)
                start_step(o, m, try);
            else if (start == 4 && k == 2)
                for (size_t i = 0; i < m; i++)
                    try[i] = res[i] > 0;
            else
                continue;
            double rss = k_lines(o, m, try, k, l);
            if (rss < best) {
                best = rss;
                memcpy(lab, try, m);
                memcpy(bl, l, sizeof(bl));
            }
        }
        if (!isfinite(best)) break;
        memcpy(prev, lab, m);
        have_prev = 1;
        if (!(best <= CLUSTER_RSS_SHARE * rss0) || m <= (size_t)(2 * k)) continue;
        double spread = sqrt(best / (double)(m - 2 * (size_t)k)), least = INFINITY;
        for (int a = 0; a < k; a++)
            for (int b = a + 1; b < k; b++)
                least = fmin(least, separation(o, m, lab, a, b, bl, tmp));
        if (least >= log(FITCHECK_CLUSTER_RATIO) && least >= CLUSTER_SPREAD * spread) {
            found = k;
            found_ratio = exp(least);
            memcpy(keep, lab, m);
            memcpy(kl, bl, sizeof(kl));
        }
    }
    if (found > 1) {
        /* lowest first: by each line's value at the middle of the sizes */
        double umid = (o[0].u + o[m - 1].u) / 2;
        int order[FITCHECK_MAX_CLUSTERS];
        for (int c = 0; c < found; c++) {
            int j = c;
            while (j > 0 && line_at(&kl[order[j - 1]], umid) > line_at(&kl[c], umid)) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = c;
        }
        for (int c = 0; c < found; c++) {
            struct fitcheck_cluster *cl = &out->cluster[c];
            int g = order[c];
            /* the line until the cluster's own fit (cluster_curves()) replaces it */
            cl->a = -1;
            cl->b = exp(kl[g].c0);
            cl->c = kl[g].c1;
            cl->nmin = INFINITY;
            cl->nmax = -INFINITY;
        }
        for (size_t i = 0; i < mall; i++) {
            int c = 0;
            if (o == all) {
                while (order[c] != keep[i])
                    c++;
            } else {
                for (int d = 1; d < found; d++)
                    if (fabs(all[i].v - line_at(&kl[order[d]], all[i].u)) <
                        fabs(all[i].v - line_at(&kl[order[c]], all[i].u)))
                        c = d;
            }
            struct fitcheck_cluster *cl = &out->cluster[c];
            group[i] = (unsigned char)c;
            cl->npoints++;
            cl->nmin = fmin(cl->nmin, all[i].x);
            cl->nmax = fmax(cl->nmax, all[i].x);
        }
        out->nclusters = (size_t)found;
        out->cluster_ratio = found_ratio;
    }
    free(res);
    free(tmp);
    free(lab);
    free(prev);
    free(try);
    free(keep);
    if (o != all) free((void *)o);
}

/* ---- the models refitted in relative terms ---- */

/*
 * cost = a + b t(x), fitted by least squares weighted by 1 / max(cost, 1)^2:
 * each point's misfit relative to its cost, so that under noise that grows
 * with the cost (a few percent at every size) the largest sizes do not
 * decide alone where the curve goes. t is g(x) / g(xmax) for a class and
 * (x / xmax)^c for the power model.
 */
struct rel_fit {
    int valid;   /* 0: t constant over the points, or (for a growing class) b < 0 */
    double a, b; /* on the scaled t */
    double c;    /* the power model's exponent */
    double rss;  /* sum of ((cost - f) / max(cost, 1))^2 */
};

struct rel_fits {
    struct rel_fit cls[FIT_NCLASSES];
    struct rel_fit power;
    double umax; /* ln of the largest size */
};

/* Weighted least squares of y = a + b t; 0 when t is constant over the points. */
static int wls(const struct obs *o, const double *w, const double *t, size_t m, struct rel_fit *r)
{
    double sw = 0, st = 0, sy = 0;
    for (size_t i = 0; i < m; i++) {
        sw += w[i];
        st += w[i] * t[i];
        sy += w[i] * o[i].y;
    }
    double mt = st / sw, my = sy / sw, stt = 0, sty = 0, tmax = 0;
    for (size_t i = 0; i < m; i++) {
        stt += w[i] * (t[i] - mt) * (t[i] - mt);
        sty += w[i] * (t[i] - mt) * (o[i].y - my);
        tmax = fmax(tmax, fabs(t[i]));
    }
    r->valid = 0;
    if (!(stt > 1e-24 * sw * tmax * tmax)) return 0;
    r->b = sty / stt;
    r->a = my - r->b * mt;
    r->rss = 0;
    for (size_t i = 0; i < m; i++) {
        double e = o[i].y - r->a - r->b * t[i];
        r->rss += w[i] * e * e;
    }
    r->valid = isfinite(r->rss);
    return r->valid;
}

/* t of the power model with exponent c; the RSS of its weighted fit (INFINITY: none). */
static double power_at(const struct obs *o, const double *w, size_t m, double umax, double c,
                       double *t, struct rel_fit *r)
{
    for (size_t i = 0; i < m; i++)
        t[i] = exp(c * (o[i].u - umax));
    r->c = c;
    return wls(o, w, t, m, r) ? r->rss : INFINITY;
}

/*
 * Refit every class and the power model in relative terms. The power
 * model's exponent is found by a search over c: every 0.25 from FIT_C_MIN
 * to FIT_C_MAX and the unweighted fit's c, then a golden-section search
 * within 0.25 of the best (a and b are exact for each c).
 */
static void rel_fit_all(const struct obs *o, size_t m, const struct fit_power *p,
                        struct rel_fits *rf)
{
    double *w = xmalloc(m * sizeof(*w)), *t = xmalloc(m * sizeof(*t));
    memset(rf, 0, sizeof(*rf));
    rf->umax = o[m - 1].u;
    for (size_t i = 0; i < m; i++) {
        double y = fmax(o[i].y, 1.0);
        w[i] = 1 / (y * y);
    }
    /* class 1: the weighted mean */
    struct rel_fit *one = &rf->cls[FIT_CLASS_1];
    double sw = 0, sy = 0;
    for (size_t i = 0; i < m; i++) {
        sw += w[i];
        sy += w[i] * o[i].y;
    }
    one->valid = 1;
    one->a = sy / sw;
    for (size_t i = 0; i < m; i++)
        one->rss += w[i] * (o[i].y - one->a) * (o[i].y - one->a);
    double xmax = o[m - 1].x;
    for (int c = FIT_CLASS_LOG; c < FIT_NCLASSES; c++) {
        double gmax = fit_class_g((enum fit_class)c, xmax);
        for (size_t i = 0; i < m; i++)
            t[i] = fit_class_g((enum fit_class)c, o[i].x) / (gmax > 0 ? gmax : 1);
        if (wls(o, w, t, m, &rf->cls[c]) && rf->cls[c].b < 0) rf->cls[c].valid = 0;
    }
    /* the exponent is searched for on a sample of many points, then fitted on them all */
    size_t ms;
    const struct obs *so = sample(o, m, &ms);
    double *ws = w;
    if (so != o) {
        ws = xmalloc(ms * sizeof(*ws));
        for (size_t i = 0; i < ms; i++)
            ws[i] = 1 / (fmax(so[i].y, 1.0) * fmax(so[i].y, 1.0));
    }
    struct rel_fit r;
    double best = INFINITY, bc = 1;
    for (int i = 0; i <= 40; i++) {
        double c = FIT_C_MIN + (FIT_C_MAX - FIT_C_MIN) * i / 40.0;
        double rss = power_at(so, ws, ms, rf->umax, c, t, &r);
        if (rss < best) best = rss, bc = c;
    }
    if (p->status == FIT_OK && power_at(so, ws, ms, rf->umax, p->c, t, &r) < best)
        best = r.rss, bc = p->c;
    const double phi = (sqrt(5.0) - 1) / 2;
    double lo = fmax(FIT_C_MIN, bc - 0.25), hi = fmin(FIT_C_MAX, bc + 0.25);
    double c1 = hi - phi * (hi - lo), c2 = lo + phi * (hi - lo);
    double f1 = power_at(so, ws, ms, rf->umax, c1, t, &r);
    double f2 = power_at(so, ws, ms, rf->umax, c2, t, &r);
    for (int it = 0; it < 40; it++) {
        if (f1 < f2) {
            hi = c2, c2 = c1, f2 = f1;
            c1 = hi - phi * (hi - lo);
            f1 = power_at(so, ws, ms, rf->umax, c1, t, &r);
        } else {
            lo = c1, c1 = c2, f1 = f2;
            c2 = lo + phi * (hi - lo);
            f2 = power_at(so, ws, ms, rf->umax, c2, t, &r);
        }
    }
    if (so != o) {
        free((void *)so);
        free(ws);
    }
    /* the best of the grid's and the search's ends, on every point */
    double cs[3] = {bc, c1, c2};
    for (int i = 0; i < 3; i++)
        if (power_at(o, w, m, rf->umax, cs[i], t, &r) < INFINITY &&
            (!rf->power.valid || r.rss < rf->power.rss))
            rf->power = r;
    free(w);
    free(t);
}

/* Values of a refitted model (a class, or the power model when cls < 0) at the points. */
static void rel_values(const struct obs *o, size_t m, const struct rel_fits *rf, int cls, double *f)
{
    double gmax = cls > 0 ? fit_class_g((enum fit_class)cls, o[m - 1].x) : 1;
    if (!(gmax > 0)) gmax = 1;
    for (size_t i = 0; i < m; i++) {
        double t = cls < 0    ? exp(rf->power.c * (o[i].u - rf->umax))
                   : cls == 0 ? 0
                              : fit_class_g((enum fit_class)cls, o[i].x) / gmax;
        const struct rel_fit *r = cls < 0 ? &rf->power : &rf->cls[cls];
        f[i] = r->a + r->b * t;
    }
}

/* ---- the verdict ---- */

/* Sum of squares in log space of the model values f[i] against the points. */
static double log_rss(const struct obs *o, const double *f, size_t m)
{
    double rss = 0;
    for (size_t i = 0; i < m; i++) {
        double r = o[i].v - log(fmax(f[i], 0.0) + 1.0);
        rss += r * r;
    }
    return rss;
}

/* The runs test of the signs of y - f in size order (residuals lost in rounding count as none). */
static double runs_z(const struct obs *o, const double *f, size_t m)
{
    double scale = 0;
    for (size_t i = 0; i < m; i++)
        scale = fmax(scale, fabs(o[i].y));
    size_t pos = 0, neg = 0, runs = 0;
    int last = 0;
    for (size_t i = 0; i < m; i++) {
        double r = o[i].y - f[i];
        int s = fabs(r) <= 1e-9 * scale ? 0 : r > 0 ? 1 : -1;
        if (!s) continue;
        if (s > 0)
            pos++;
        else
            neg++;
        if (s != last) runs++;
        last = s;
    }
    double n = (double)(pos + neg), np = (double)pos, nn = (double)neg;
    if (!pos || !neg || n <= 2) return NAN;
    double mean = 1 + 2 * np * nn / n;
    double var = 2 * np * nn * (2 * np * nn - n) / (n * n * (n - 1));
    return var > 0 ? ((double)runs - mean) / sqrt(var) : NAN;
}

/*
 * What a relative RSS below which models count as exact: FITCHECK_REL_FLOOR
 * of each cost, or half a unit of it when that is more (costs are counts,
 * and half a unit is rounding).
 */
static double rss_floor(const struct obs *o, size_t m)
{
    double floor = 0;
    for (size_t i = 0; i < m; i++) {
        double half = 0.5 / fmax(o[i].y, 1.0);
        floor += fmax(FITCHECK_REL_FLOOR * FITCHECK_REL_FLOOR, half * half);
    }
    return floor;
}

/* BIC of a model leaving rss (relative, floored), with k parameters, over m points. */
static double bic_of(double rss, double floor, size_t m, int k)
{
    if (!(rss > floor)) rss = floor; /* also NaN */
    return (double)m * log(rss / (double)m) + k * log((double)m);
}

/* Sizes: distinct count, extremes and inner extremes. */
static void size_range(const struct obs *o, size_t m, struct fitcheck *out)
{
    double d[4] = {0, 0, 0, 0}; /* smallest two and largest two distinct */
    size_t nd = 0;
    for (size_t i = 0; i < m; i++) {
        if (i && o[i].x == o[i - 1].x) continue;
        if (nd < 2) d[nd] = o[i].x;
        d[2] = nd ? d[3] : o[i].x;
        d[3] = o[i].x;
        nd++;
    }
    out->nsizes = nd;
    out->nmin = m ? o[0].x : 0;
    out->nmax = m ? o[m - 1].x : 0;
    if (nd >= 4) {
        out->ninner_lo = d[1];
        out->ninner_hi = d[2];
    }
}

static int range_narrow(const struct fitcheck *v)
{
    if (v->nmax < FITCHECK_MIN_RANGE * v->nmin) return 1;
    return v->nsizes >= 4 && v->ninner_hi < FITCHECK_MIN_RANGE_INNER * v->ninner_lo;
}

/* 1 - RSS/TSS of the values f. */
static double r2_of(const struct obs *o, const double *f, size_t m)
{
    double mean = 0, tss = 0, rss = 0;
    for (size_t i = 0; i < m; i++)
        mean += o[i].y / (double)m;
    for (size_t i = 0; i < m; i++) {
        tss += (o[i].y - mean) * (o[i].y - mean);
        rss += (o[i].y - f[i]) * (o[i].y - f[i]);
    }
    return tss > 0 ? 1 - rss / tss : 0;
}

/*
 * Steps 4 and 5 on non-constant data, with the models refitted in relative
 * terms: the simplest class within FITCHECK_BIC_TIE of the best BIC of the
 * classes and the power model, then its quality.
 */
static void choose(const struct obs *o, size_t m, const struct fit_power *p,
                   const struct fit_classes *k, const struct rel_fits *rf, double *f,
                   struct fitcheck *out)
{
    double bic[FIT_NCLASSES], best = INFINITY, floor = rss_floor(o, m);
    for (int c = 0; c < FIT_NCLASSES; c++) {
        bic[c] = rf->cls[c].valid ? bic_of(rf->cls[c].rss, floor, m, c == FIT_CLASS_1 ? 1 : 2)
                                  : INFINITY;
        best = fmin(best, bic[c]);
    }
    if (rf->power.valid) best = fmin(best, bic_of(rf->power.rss, floor, m, 3));
    int cls = -1;
    for (int c = 0; c < FIT_NCLASSES && cls < 0; c++)
        if (bic[c] <= best + FITCHECK_BIC_TIE) cls = c;
    /* a growing class tied with another: the data do not tell them apart */
    out->tied_lo = out->tied_hi = FIT_CLASS_1;
    for (int c = cls + 1; cls > FIT_CLASS_1 && c < FIT_NCLASSES; c++)
        if (bic[c] <= best + FITCHECK_BIC_TIE) out->tied_hi = (enum fit_class)c;
    if (out->tied_hi != FIT_CLASS_1) out->tied_lo = (enum fit_class)cls;

    const struct rel_fit *r = cls < 0 ? &rf->power : &rf->cls[cls];
    rel_values(o, m, rf, cls, f);
    out->rel_err = sqrt(r->rss / (double)m);
    out->runs_z = runs_z(o, f, m);
    /* R^2 as the report prints it (the unweighted fit's) when there is one */
    if (cls == FIT_CLASS_1)
        out->r2 = 0;
    else if (cls > 0 && k->fit[cls].valid)
        out->r2 = k->fit[cls].r2;
    else if (cls < 0 && p->status == FIT_OK)
        out->r2 = p->r2;
    else
        out->r2 = r2_of(o, f, m);
    int pattern = out->runs_z < FITCHECK_RUNS_Z && out->rel_err > FITCHECK_PATTERN_ERR;
    if (cls >= 0) {
        if (cls != FIT_CLASS_1 && out->r2 < FITCHECK_MIN_R2)
            out->why = FITCHECK_POOR_R2;
        else if (out->rel_err > (cls == FIT_CLASS_1 ? FITCHECK_MAX_FLAT_ERR : FITCHECK_MAX_REL_ERR))
            out->why = FITCHECK_POOR_ERROR;
        else if (pattern)
            out->why = FITCHECK_POOR_PATTERN;
        else if (out->tied_hi != FIT_CLASS_1)
            out->why = FITCHECK_TIED;
        else {
            out->why = FITCHECK_CLASS;
            out->cls = (enum fit_class)cls;
        }
        return;
    }
    /* no class fits as well as the free exponent: say why */
    if (out->rel_c < 0 || out->rel_b < 0)
        out->why = FITCHECK_DECREASING;
    else if (out->r2 < FITCHECK_MIN_R2)
        out->why = FITCHECK_POOR_R2;
    else if (out->rel_err > FITCHECK_MAX_REL_ERR)
        out->why = FITCHECK_POOR_ERROR;
    else if (out->rel_c > FITCHECK_MAX_C)
        out->why = FITCHECK_STEEP;
    else if (pattern)
        out->why = FITCHECK_POOR_PATTERN;
    else
        out->why = FITCHECK_BETWEEN;
}

/* Each cluster's own curve: the power model refitted in relative terms to its points. */
static void cluster_curves(const struct obs *o, size_t m, const unsigned char *group,
                           struct fitcheck *out)
{
    struct obs *sub = xmalloc(m * sizeof(*sub));
    struct fit_power none = {.status = FIT_TOO_FEW};
    for (size_t c = 0; c < out->nclusters; c++) {
        size_t k = 0;
        for (size_t i = 0; i < m; i++)
            if (group[i] == c) sub[k++] = o[i];
        struct rel_fits rf;
        rel_fit_all(sub, k, &none, &rf);
        if (!rf.power.valid) continue; /* keep the line */
        struct fitcheck_cluster *cl = &out->cluster[c];
        cl->a = rf.power.a;
        cl->b = rf.power.b * exp(-rf.power.c * rf.umax);
        cl->c = rf.power.c;
    }
    free(sub);
}

/*
 * Each point to the cluster whose curve is nearest in log space, with
 * counts and ranges anew; unless a cluster would fall below
 * FITCHECK_CLUSTER_MIN points (then nothing changes).
 */
static void reassign(const struct obs *o, size_t m, unsigned char *group, struct fitcheck *out)
{
    unsigned char *next = xmalloc(m);
    size_t count[FITCHECK_MAX_CLUSTERS] = {0};
    for (size_t i = 0; i < m; i++) {
        size_t best = group[i];
        double bd = INFINITY;
        for (size_t c = 0; c < out->nclusters; c++) {
            const struct fitcheck_cluster *cl = &out->cluster[c];
            double f = cl->a + cl->b * exp(cl->c * o[i].u);
            double d = fabs(o[i].v - log(fmax(f, 0.0) + 1.0));
            if (d < bd) bd = d, best = c;
        }
        next[i] = (unsigned char)best;
        count[best]++;
    }
    int ok = 1;
    for (size_t c = 0; c < out->nclusters; c++)
        ok &= count[c] >= FITCHECK_CLUSTER_MIN;
    if (ok) {
        memcpy(group, next, m);
        for (size_t c = 0; c < out->nclusters; c++) {
            out->cluster[c].npoints = count[c];
            out->cluster[c].nmin = INFINITY;
            out->cluster[c].nmax = -INFINITY;
        }
        for (size_t i = 0; i < m; i++) {
            struct fitcheck_cluster *cl = &out->cluster[group[i]];
            cl->nmin = fmin(cl->nmin, o[i].x);
            cl->nmax = fmax(cl->nmax, o[i].x);
        }
    }
    free(next);
}

void fitcheck_judge(const double *x, const double *y, size_t n, const struct fit_power *p,
                    const struct fit_classes *k, struct fitcheck *out)
{
    memset(out, 0, sizeof(*out));
    out->cls = FIT_CLASS_1;
    out->r2 = out->rel_err = out->runs_z = out->cluster_ratio = NAN;
    out->c = p->status == FIT_OK ? p->c : NAN;
    out->rel_c = out->rel_b = NAN;
    out->nclusters = n ? 1 : 0;
    if (p->status == FIT_BAD_DATA || k->status == FIT_BAD_DATA) {
        out->why = FITCHECK_BAD_DATA;
        return;
    }
    struct obs *o = xmalloc((n ? n : 1) * sizeof(*o));
    for (size_t i = 0; i < n; i++) {
        o[i].x = x[i] < 1 ? 1 : x[i];
        o[i].y = y[i];
        o[i].u = log(o[i].x);
        o[i].v = log(fmax(y[i], 0.0) + 1.0);
    }
    qsort(o, n, sizeof(*o), cmp_obs);
    size_range(o, n, out);
    double *f = xmalloc((n ? n : 1) * sizeof(*f));
    if (out->nsizes < FITCHECK_MIN_SIZES) {
        out->why = FITCHECK_TOO_FEW;
    } else if (k->status == FIT_CONSTANT) { /* every cost equal */
        out->why = range_narrow(out) ? FITCHECK_NARROW : FITCHECK_CLASS;
        out->r2 = 0;
        out->rel_err = 0;
    } else {
        struct rel_fits rf;
        rel_fit_all(o, n, p, &rf);
        if (rf.power.valid) {
            out->rel_c = rf.power.c;
            out->rel_b = rf.power.b * exp(-rf.power.c * rf.umax);
        }
        /* one smooth curve: the best of the models, in log space */
        double rss0 = INFINITY;
        for (int c = -1; c < FIT_NCLASSES; c++) {
            if (!(c < 0 ? rf.power.valid : rf.cls[c].valid)) continue;
            rel_values(o, n, &rf, c, f);
            rss0 = fmin(rss0, log_rss(o, f, n));
        }
        unsigned char *group = xmalloc(n);
        find_clusters(o, n, rss0, group, out);
        if (out->nclusters > 1) {
            out->why = FITCHECK_CLUSTERS;
            cluster_curves(o, n, group, out);
            /* once more, each point with the nearest of those curves */
            reassign(o, n, group, out);
            cluster_curves(o, n, group, out);
        }
        free(group);
        if (out->nclusters == 1) {
            if (range_narrow(out))
                out->why = FITCHECK_NARROW;
            else
                choose(o, n, p, k, &rf, f, out);
        }
    }
    free(f);
    free(o);
}

const char *fitcheck_count_word(size_t n)
{
    static const char *const words[] = {"no", "one", "two", "three", "four", "five"};
    return n < sizeof(words) / sizeof(words[0]) ? words[n] : "many";
}

/* The exponent a reason quotes: the one the reports show, unless there is none. */
static double shown_c(const struct fitcheck *v)
{
    return isfinite(v->c) ? v->c : v->rel_c;
}

char *fitcheck_reason(const struct fitcheck *v, char *buf, size_t size)
{
    switch (v->why) {
    case FITCHECK_CLASS:
        snprintf(buf, size, "%s", "");
        break;
    case FITCHECK_TOO_FEW:
        snprintf(buf, size, "too few sizes (%zu)", v->nsizes);
        break;
    case FITCHECK_BAD_DATA:
        snprintf(buf, size, "not fitted (bad data)");
        break;
    case FITCHECK_CLUSTERS:
        snprintf(buf, size, "%s clusters", fitcheck_count_word(v->nclusters));
        break;
    case FITCHECK_NARROW:
        if (v->nmax < FITCHECK_MIN_RANGE * v->nmin)
            snprintf(buf, size, "n range too narrow (%.0f to %.0f)", v->nmin, v->nmax);
        else
            snprintf(buf, size, "n range too narrow (%.0f to %.0f without its ends)", v->ninner_lo,
                     v->ninner_hi);
        break;
    case FITCHECK_DECREASING:
        if (shown_c(v) < 0)
            snprintf(buf, size, "negative exponent (%.2f)", shown_c(v));
        else
            snprintf(buf, size, "decreasing cost");
        break;
    case FITCHECK_STEEP:
        snprintf(buf, size, "exponent %.2f beyond n^3", shown_c(v));
        break;
    case FITCHECK_BETWEEN:
        snprintf(buf, size, "exponent %.2f between classes", shown_c(v));
        break;
    case FITCHECK_TIED:
        snprintf(buf, size, "%s %s %s", fit_class_name(v->tied_lo),
                 v->tied_hi == v->tied_lo + 1 ? "or" : "to", fit_class_name(v->tied_hi));
        break;
    case FITCHECK_POOR_R2:
        snprintf(buf, size, "poor fit (R^2 %.2f)", v->r2);
        break;
    case FITCHECK_POOR_ERROR:
        snprintf(buf, size, "poor fit (error %.0f%%)", 100 * v->rel_err);
        break;
    case FITCHECK_POOR_PATTERN:
        snprintf(buf, size, "poor fit (pattern in residuals)");
        break;
    }
    return buf;
}

char *fitcheck_label(const struct fitcheck *v, char *buf, size_t size)
{
    if (v->why == FITCHECK_CLASS) {
        snprintf(buf, size, "%s", fit_class_name(v->cls));
    } else {
        char why[96];
        snprintf(buf, size, "no clear class: %s", fitcheck_reason(v, why, sizeof(why)));
    }
    return buf;
}
