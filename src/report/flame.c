/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame.c - the SVG flame graph (see flame.h; element ids, classes and
 * data attributes are listed in docs/internals/stacks.md).
 */
#include "flame.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xmltext.h"

enum { PAD = 10, FRAME_H = 16, TOP = 64, BOTTOM = 30, LEGEND_H = 18 };

/* The mean advance of a 12px sans-serif character (the subtitle's font),
   a little generous, to tell when a subtitle would not fit. */
#define SUBTITLE_CHAR_W 6.4

/* Characters (not bytes) of a UTF-8 string; 0 for NULL. */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}
#define CHAR_W 7.0 /* average glyph width of the 12px font, for labels */

/* A label that fits `px` pixels: the name, or its start and "..", or "". */
static void put_label(FILE *fp, const char *name, double px)
{
    double fit = (px - 6) / CHAR_W;
    if (fit < 3) return;
    size_t chars = (size_t)fit, len = 0;
    for (const unsigned char *u = (const unsigned char *)name; *u; u++)
        if ((*u & 0xc0) != 0x80) len++;
    if (len <= chars) {
        xml_text(fp, name, SIZE_MAX);
        return;
    }
    xml_text(fp, name, chars - 2);
    fputs("..", fp);
}

static void put_count(FILE *fp, uint64_t v)
{
    char buf[32], out[48];
    int n = snprintf(buf, sizeof(buf), "%" PRIu64, v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) out[o++] = ',';
        out[o++] = buf[i];
    }
    out[o] = 0;
    fputs(out, fp);
}

static uint32_t hash_str(const char *s, uint32_t h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

struct flame {
    const struct stack_tree *t;
    const struct flame_options *o;
    FILE *fp;
    size_t ev;
    uint64_t grand, max_self;
    double width, minpx;
    uint32_t *old_of; /* [t->n] node of `old` with the same stack, 0 = none */
};

static uint64_t total_of(const struct flame *f, uint32_t i)
{
    return stack_total(f->t, i)[f->ev];
}
static uint64_t self_of(const struct flame *f, uint32_t i)
{
    return stack_self(f->t, i)[f->ev];
}

static void fill_color(const struct flame *f, uint32_t i, char *buf, size_t size)
{
    const struct stack_tree *t = f->t;
    if (f->o->old) {
        uint64_t now = self_of(f, i);
        uint64_t was = f->old_of[i] ? stack_self(f->o->old, f->old_of[i])[f->o->old_event] : 0;
        if (i == 0 || now == was) {
            snprintf(buf, size, "rgb(225,225,225)");
            return;
        }
        double big = (double)(now > was ? now : was);
        double rel = ((double)now - (double)was) / big; /* -1 .. 1 */
        if (f->o->negate) rel = -rel;                   /* `t` is OLD: the change is was - now */
        /* the square root makes small changes visible: +100% (rel 0.5) is a strong red */
        int c = (int)lround(215 - 195 * sqrt(fabs(rel)));
        if (rel > 0)
            snprintf(buf, size, "rgb(255,%d,%d)", c, c);
        else
            snprintf(buf, size, "rgb(%d,%d,255)", c, c);
        return;
    }
    if (f->o->colors == FLAME_COLORS_COST) {
        double v = f->max_self ? (double)self_of(f, i) / (double)f->max_self : 0;
        int c = (int)lround(235 - 200 * v);
        snprintf(buf, size, "rgb(255,%d,%d)", c, c);
        return;
    }
    if (i == 0) {
        snprintf(buf, size, "rgb(220,220,220)");
        return;
    }
    const char *mod = stack_node_object(t, i);
    if (!*mod) mod = stack_node_file(t, i);
    uint32_t h = hash_str(mod, 2166136261u), j = hash_str(stack_node_name(t, i), 2166136261u);
    int r = 205 + (int)(h % 50), g = 60 + (int)((h >> 8) % 150), b = 30 + (int)((h >> 16) % 40);
    g += (int)(j % 21) - 10;
    if (g < 0) g = 0;
    snprintf(buf, size, "rgb(%d,%d,%d)", r, g, b);
}

static void frame_title(const struct flame *f, uint32_t i)
{
    const struct stack_tree *t = f->t;
    FILE *fp = f->fp;
    if (i == 0) {
        fputs("all", fp);
    } else {
        xml_text(fp, stack_node_name(t, i), SIZE_MAX);
        const char *file = stack_node_file(t, i), *obj = stack_node_object(t, i);
        if (*file || *obj) {
            fputs(" (", fp);
            xml_text(fp, *file ? file : obj, SIZE_MAX);
            if (*file && *obj) {
                fputs(", ", fp);
                xml_text(fp, obj, SIZE_MAX);
            }
            fputc(')', fp);
        }
    }
    uint64_t self = self_of(f, i), tot = total_of(f, i);
    fputc('\n', fp);
    xml_text(fp, t->ev_names[f->ev], SIZE_MAX);
    fputs(" total ", fp);
    put_count(fp, tot);
    fprintf(fp, " (%.2f%%), self ", pct(tot, f->grand));
    put_count(fp, self);
    fprintf(fp, " (%.2f%%)", pct(self, f->grand));
    if (i) {
        fputs(", calls ", fp);
        put_count(fp, t->nodes[i].calls);
    }
    if (f->o->old && i) {
        uint64_t was = f->old_of[i] ? stack_self(f->o->old, f->old_of[i])[f->o->old_event] : 0;
        fputs(f->o->negate ? "\nself after " : "\nself before ", fp);
        put_count(fp, was);
        if (f->o->negate) {
            /* the frame is OLD's: the change is from self to was */
            uint64_t tmp = self;
            self = was;
            was = tmp;
        }
        int64_t d = (int64_t)(self - was);
        fprintf(fp, ", change %s", d >= 0 ? "+" : "-");
        put_count(fp, d >= 0 ? (uint64_t)d : (uint64_t)0 - (uint64_t)d);
        if (was) fprintf(fp, " (%+.1f%%)", 100.0 * ((double)self - (double)was) / (double)was);
    }
}

/* The script: zoom, reset, search, details. Element names: docs/internals/stacks.md. */
static const char script[] =
    "(function () {\n"
    "  'use strict';\n"
    "  var svg = document.getElementById('tally-flame');\n"
    "  if (!svg) return;\n"
    "  var pad = +svg.getAttribute('data-pad'), width = +svg.getAttribute('data-width');\n"
    "  var total = +svg.getAttribute('data-total');\n"
    "  var details = document.getElementById('details');\n"
    "  var matchedText = document.getElementById('matched');\n"
    "  var icText = document.getElementById('ignorecase');\n"
    "  var unzoomText = document.getElementById('unzoom');\n"
    "  var frames = [], lastRe = '', ignoreCase = false, matchedShare = 0;\n"
    "  var nodes = svg.querySelectorAll('g.frame');\n"
    "  for (var i = 0; i < nodes.length; i++) {\n"
    "    var g = nodes[i], rect = g.querySelector('rect');\n"
    "    frames.push({g: g, rect: rect, text: g.querySelector('text'),\n"
    "      name: g.getAttribute('data-name'), x: +g.getAttribute('data-x'),\n"
    "      w: +g.getAttribute('data-w'), d: +g.getAttribute('data-depth'),\n"
    "      fill: rect.getAttribute('fill'), px: +rect.getAttribute('x'),\n"
    "      pw: +rect.getAttribute('width')});\n"
    "  }\n"
    "  function label(f, w) {\n"
    "    var fit = Math.floor((w - 6) / 7);\n"
    "    if (fit < 3) return '';\n"
    "    var n = f.name;\n"
    "    return n.length <= fit ? n : n.slice(0, fit - 2) + '..';\n"
    "  }\n"
    "  function place(f, x, w) {\n"
    "    f.rect.setAttribute('x', x.toFixed(2));\n"
    "    f.rect.setAttribute('width', w.toFixed(2));\n"
    "    f.text.setAttribute('x', (x + 3).toFixed(2));\n"
    "    f.text.textContent = label(f, w);\n"
    "  }\n"
    "  function reset() {\n"
    "    frames.forEach(function (f) {\n"
    "      f.g.classList.remove('hide');\n"
    "      f.g.classList.remove('parent');\n"
    "      place(f, f.px, f.pw);\n"
    "    });\n"
    "    unzoomText.classList.add('hide');\n"
    "  }\n"
    "  function zoom(z) {\n"
    "    if (typeof z === 'number') z = frames[z];\n"
    "    if (!z || !(z.w > 0)) return;\n"
    "    var x0 = z.x, x1 = z.x + z.w, scale = width / z.w, eps = z.w * 1e-9;\n"
    "    frames.forEach(function (f) {\n"
    "      var g = f.g;\n"
    "      if (f.d < z.d && f.x <= x0 + eps && f.x + f.w >= x1 - eps) {\n"
    "        g.classList.remove('hide');\n"
    "        g.classList.add('parent');\n"
    "        place(f, pad, width);\n"
    "      } else if (f.d >= z.d && f.x >= x0 - eps && f.x + f.w <= x1 + eps) {\n"
    "        g.classList.remove('hide');\n"
    "        g.classList.remove('parent');\n"
    "        place(f, pad + (f.x - x0) * scale, f.w * scale);\n"
    "      } else {\n"
    "        g.classList.add('hide');\n"
    "      }\n"
    "    });\n"
    "    unzoomText.classList.remove('hide');\n"
    "  }\n"
    "  function clearSearch() {\n"
    "    frames.forEach(function (f) {\n"
    "      f.rect.setAttribute('fill', f.fill);\n"
    "      f.g.classList.remove('match');\n"
    "    });\n"
    "    matchedText.textContent = '';\n"
    "    matchedShare = 0;\n"
    "  }\n"
    "  function search(re, ic) {\n"
    "    if (typeof ic === 'boolean') ignoreCase = ic;\n"
    "    icText.classList.toggle('on', ignoreCase);\n"
    "    clearSearch();\n"
    "    lastRe = re || '';\n"
    "    if (!lastRe) return 0;\n"
    "    var rx;\n"
    "    try {\n"
    "      rx = new RegExp(lastRe, ignoreCase ? 'i' : '');\n"
    "    } catch (e) {\n"
    "      matchedText.textContent = 'bad regular expression';\n"
    "      return -1;\n"
    "    }\n"
    "    var spans = [];\n"
    "    frames.forEach(function (f) {\n"
    "      if (f.d === 0 || !rx.test(f.name)) return;\n"
    "      f.rect.setAttribute('fill', 'rgb(230,0,230)');\n"
    "      f.g.classList.add('match');\n"
    "      spans.push([f.x, f.x + f.w]);\n"
    "    });\n"
    "    /* a match inside another match is not counted again */\n"
    "    spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
    "    var sum = 0, end = -Infinity;\n"
    "    spans.forEach(function (s) {\n"
    "      if (s[0] >= end) { sum += s[1] - s[0]; end = s[1]; }\n"
    "      else if (s[1] > end) { sum += s[1] - end; end = s[1]; }\n"
    "    });\n"
    "    matchedShare = total > 0 ? sum / total : 0;\n"
    "    matchedText.textContent = 'Matched: ' + (100 * matchedShare).toFixed(2) + '%';\n"
    "    return matchedShare;\n"
    "  }\n"
    "  function ask() {\n"
    "    var re = window.prompt('Search for a function (regular expression)', lastRe);\n"
    "    if (re !== null) search(re);\n"
    "  }\n"
    "  frames.forEach(function (f) {\n"
    "    f.g.addEventListener('click', function () { zoom(f); });\n"
    "    f.g.addEventListener('mouseover', function () {\n"
    "      var t = f.g.querySelector('title');\n"
    "      details.textContent = t ? t.textContent.replace(/\\n/g, ' | ') : f.name;\n"
    "    });\n"
    "    f.g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "  });\n"
    "  unzoomText.addEventListener('click', reset);\n"
    "  document.getElementById('search').addEventListener('click', ask);\n"
    "  icText.addEventListener('click', function () {\n"
    "    ignoreCase = !ignoreCase;\n"
    "    search(lastRe);\n"
    "  });\n"
    "  /* In a page of its own the picture takes Ctrl-F; embedded (tally report)\n"
    "     only while it has the focus (a click on it, or Tab), so the browser's\n"
    "     find keeps working on the rest of the page. */\n"
    "  var doc = svg.ownerDocument || document;\n"
    "  var embedded = !!doc.documentElement && doc.documentElement !== svg;\n"
    "  svg.addEventListener('mousedown', function () { if (embedded) svg.focus(); });\n"
    "  window.addEventListener('keydown', function (e) {\n"
    "    var a = document.activeElement;\n"
    "    if (embedded && !(a === svg || svg.contains(a))) return;\n"
    "    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); ask(); }\n"
    "    else if (e.key === 'Escape') { reset(); clearSearch(); }\n"
    "  });\n"
    "  window.tallyFlame = {zoom: zoom, reset: reset, search: search,\n"
    "    matched: function () { return matchedShare; }, frames: frames.length};\n"
    "})();\n";

/* Every rule is scoped to the picture: embedded in a page (tally report),
   it must not restyle the page's other SVGs. */
static const char style[] =
    "#tally-flame text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
    "#tally-flame #title { font-size: 17px; text-anchor: middle; }\n"
    "#tally-flame #subtitle { font-size: 12px; text-anchor: middle; fill: rgb(80,80,80); }\n"
    "#tally-flame #search, #tally-flame #ignorecase, #tally-flame #unzoom { cursor: pointer; "
    "fill: rgb(40,40,160); }\n"
    "#tally-flame #ignorecase.on { font-weight: bold; }\n"
    "#tally-flame #search, #tally-flame #ignorecase, #tally-flame #matched { text-anchor: end; }\n"
    "#tally-flame .hide { display: none; }\n"
    "#tally-flame .parent { opacity: 0.5; }\n"
    "#tally-flame g.frame { cursor: pointer; }\n"
    "#tally-flame g.frame:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
    "#tally-flame g.frame text { pointer-events: none; }\n"
    "#tally-flame:focus { outline: 2px solid rgb(40,40,160); }\n";

int flame_write_svg(const struct stack_tree *t, const struct flame_options *opt, FILE *fp,
                    struct tally_error *err)
{
    struct flame f;
    memset(&f, 0, sizeof(f));
    f.t = t;
    f.o = opt;
    f.fp = fp;
    f.ev = opt->event;
    if (!t->n || f.ev >= t->nev)
        return tally_error_set(err, NULL, 0, "%s", "no such event in the stack tree");
    if (opt->old && opt->old_event >= opt->old->nev)
        return tally_error_set(err, NULL, 0, "%s", "no such event in the old stack tree");
    unsigned imgw = opt->width ? opt->width : 1200;
    if (imgw < 100) imgw = 100;
    f.width = imgw - 2 * PAD;
    f.grand = total_of(&f, 0);
    f.minpx = opt->minwidth_frac > 0 ? opt->minwidth_frac * f.width
              : opt->minwidth_px > 0 ? opt->minwidth_px
                                     : 0.1;
    /* which frames are drawn, their offsets and the deepest one */
    uint64_t *xoff = xcalloc(t->n, sizeof(uint64_t));
    uint32_t *order = xmalloc(t->n * sizeof(uint32_t)), *stk = xmalloc(t->n * sizeof(uint32_t));
    size_t norder = 0, top = 0;
    unsigned maxd = 0;
    stk[top++] = 0;
    while (top) {
        uint32_t i = stk[--top];
        order[norder++] = i;
        if (t->nodes[i].depth > maxd) maxd = t->nodes[i].depth;
        if (self_of(&f, i) > f.max_self && i) f.max_self = self_of(&f, i);
        uint64_t x = xoff[i];
        size_t first = top;
        for (uint32_t c = t->nodes[i].first_child; c; c = t->nodes[c].next_sibling) {
            xoff[c] = x;
            x += total_of(&f, c);
            double px = f.grand ? (double)total_of(&f, c) / (double)f.grand * f.width : 0;
            if (px >= f.minpx && total_of(&f, c) > 0) stk[top++] = c;
        }
        /* visit children left to right */
        for (size_t a = first, b = top; b > a + 1; a++, b--) {
            uint32_t tmp = stk[a];
            stk[a] = stk[b - 1];
            stk[b - 1] = tmp;
        }
    }
    if (opt->old) {
        /* both trees list children by name: match them by a merge walk */
        const struct stack_tree *ot = opt->old;
        f.old_of = xcalloc(t->n, sizeof(uint32_t));
        for (size_t k = 0; k < norder; k++) {
            uint32_t i = order[k];
            if (i && !f.old_of[i]) continue;
            uint32_t d = ot->nodes[f.old_of[i]].first_child;
            for (uint32_t c = t->nodes[i].first_child; c && d; c = t->nodes[c].next_sibling) {
                int cmp = -1;
                while (d && (cmp = strcmp(stack_node_name(ot, d), stack_node_name(t, c))) < 0)
                    d = ot->nodes[d].next_sibling;
                if (d && cmp == 0) f.old_of[c] = d;
            }
        }
    }
    unsigned ytop = TOP + (opt->old ? LEGEND_H : 0);
    unsigned height = ytop + (maxd + 1) * FRAME_H + BOTTOM;
    const char *title = opt->title ? opt->title : opt->icicle ? "Icicle Graph" : "Flame Graph";
    if (!opt->fragment) fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", fp);
    fprintf(fp,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" id=\"tally-flame\" "
            "tabindex=\"0\" "
            "width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" data-pad=\"%d\" data-width=\"%.2f\" "
            "data-total=\"%" PRIu64 "\" data-kind=\"%s\" data-icicle=\"%d\" data-event=\"",
            imgw, height, imgw, height, PAD, f.width, f.grand,
            t->kind == STACKS_EXACT ? "exact" : "estimated", opt->icicle ? 1 : 0);
    xml_text(fp, t->ev_names[f.ev], SIZE_MAX);
    fprintf(fp, "\" data-diff=\"%d\">\n", opt->old ? 1 : 0);
    fprintf(fp, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", style);
    fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"rgb(250,250,245)\"/>\n",
            imgw, height);
    fprintf(fp, "<text id=\"title\" x=\"%.1f\" y=\"24\">", imgw / 2.0);
    xml_text(fp, title, SIZE_MAX);
    fputs("</text>\n", fp);
    /* the subtitle: what the widths and colours mean, and how the stacks
       were made; a line too long for the picture is narrowed to fit */
    const char *diff_text =
        !opt->old ? ""
        : opt->negate
            ? "differential (widths: old, --negate; red: grew, blue: shrank) \xe2\x80\x94 "
            : "differential (widths: new; red: grew, blue: shrank) \xe2\x80\x94 ";
    const char *trunc_text = t->truncated ? " (node limit reached: small frames left out)" : "";
    size_t nchars = utf8_chars(diff_text) + utf8_chars(t->method) + utf8_chars(trunc_text) +
                    (opt->subtitle ? utf8_chars(opt->subtitle) + 3 : 0);
    double room = imgw - 2.0 * PAD;
    fprintf(fp, "<text id=\"subtitle\" x=\"%.1f\" y=\"42\"", imgw / 2.0);
    if (nchars * SUBTITLE_CHAR_W > room)
        fprintf(fp, " textLength=\"%.0f\" lengthAdjust=\"spacingAndGlyphs\"", room);
    fputc('>', fp);
    if (opt->subtitle) {
        xml_text(fp, opt->subtitle, SIZE_MAX);
        fputs(" \xe2\x80\x94 ", fp);
    }
    fputs(diff_text, fp);
    xml_text(fp, t->method ? t->method : "", SIZE_MAX);
    fputs(trunc_text, fp);
    fputs("</text>\n", fp);
    if (opt->old) {
        /* the legend: what the colours of a differential graph say */
        static const struct {
            const char *fill, *text;
        } keys[] = {/* shades of the formula in fill_color() */
                    {"rgb(255,20,20)", "new"},
                    {"rgb(255,77,77)", "doubled"},
                    {"rgb(255,156,156)", "+10%"},
                    {"rgb(225,225,225)", "unchanged"},
                    {"rgb(156,156,255)", "\xe2\x88\x92"
                                         "10%"},
                    {"rgb(77,77,255)", "halved"},
                    {"rgb(20,20,255)", "gone"}};
        fputs("<g id=\"legend\">", fp);
        double lx = PAD;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            fprintf(fp,
                    "<rect x=\"%.1f\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\" "
                    "stroke=\"rgb(120,120,120)\" stroke-width=\"0.5\"/><text x=\"%.1f\" "
                    "y=\"%d\">%s</text>",
                    lx, TOP - 8, keys[k].fill, lx + 18, TOP + 2, keys[k].text);
            lx += 18 + 7.5 * (double)strlen(keys[k].text) + 14;
        }
        fprintf(fp,
                "<text x=\"%.1f\" y=\"%d\">(self cost, NEW against OLD; shade: the "
                "change over the larger of the two)</text></g>\n",
                lx, TOP + 2);
    }
    fprintf(fp, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n", PAD);
    fprintf(fp, "<text id=\"search\" x=\"%u\" y=\"24\">Search</text>\n", imgw - PAD - 24);
    fprintf(fp, "<text id=\"ignorecase\" x=\"%u\" y=\"24\">ic</text>\n", imgw - PAD);
    fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", PAD, height - 10);
    fprintf(fp, "<text id=\"matched\" x=\"%u\" y=\"%u\"></text>\n", imgw - PAD, height - 10);
    fputs("<g id=\"frames\">\n", fp);
    char color[40];
    for (size_t k = 0; k < norder; k++) {
        uint32_t i = order[k];
        unsigned d = t->nodes[i].depth;
        double x = PAD + (f.grand ? (double)xoff[i] / (double)f.grand * f.width : 0);
        double w = f.grand ? (double)total_of(&f, i) / (double)f.grand * f.width : f.width;
        double y = opt->icicle ? ytop + (double)d * FRAME_H
                               : (double)height - BOTTOM - (double)(d + 1) * FRAME_H;
        fill_color(&f, i, color, sizeof(color));
        fputs("<g class=\"frame\" data-name=\"", fp);
        xml_text(fp, i ? stack_node_name(t, i) : "all", SIZE_MAX);
        fprintf(fp,
                "\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-self=\"%" PRIu64
                "\" data-depth=\"%u\"",
                xoff[i], total_of(&f, i), self_of(&f, i), d);
        if (opt->old && i)
            fprintf(fp, " data-old=\"%" PRIu64 "\"",
                    f.old_of[i] ? stack_self(opt->old, f.old_of[i])[opt->old_event] : 0);
        fputs("><title>", fp);
        frame_title(&f, i);
        fprintf(fp,
                "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
                "rx=\"2\" ry=\"2\"%s/><text x=\"%.2f\" y=\"%.1f\">",
                x, y, w, FRAME_H - 1, color,
                opt->old ? " stroke=\"rgb(150,150,150)\" stroke-width=\"0.5\"" : "", x + 3,
                y + 11.5);
        put_label(fp, i ? stack_node_name(t, i) : "all", w);
        fputs("</text></g>\n", fp);
    }
    fputs("</g>\n", fp);
    fprintf(fp, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", script);
    fputs("</svg>\n", fp);
    free(xoff);
    free(order);
    free(stk);
    free(f.old_of);
    if (ferror(fp)) return tally_error_set(err, NULL, 0, "%s", "write error");
    return 0;
}
