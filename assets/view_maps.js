/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tally view: the Maps tab, the callee map or the caller map of the selected function, as KCachegrind draws
 * them: nested rectangles whose areas are inclusive costs. The callee map is the tree of
 * api/flame?id= (what runs under the function, merged over its call sites): a callee's
 * rectangle lies inside its caller's, and the part of a rectangle its children leave empty is
 * the function's own cost. The caller map is the callers' tree of api/sandwich (the function at
 * the root, who called it inside). Rectangles are laid out squarified (rows along the shorter
 * side, each row as long as keeps its rectangles closest to squares), coloured by the object
 * the function is in (a legend names them), labelled where the name fits; a click selects the
 * function everywhere, the title of a rectangle gives its name, cost and object.
 */
(function () {
  'use strict';
  var HEAD = 14, PAD = 2, MIN = 6, MAXRECTS = 4000, CHARW = 6.2;

  /* the colour of a box: the hue of its object (number k: hues spread around the circle), the
     lightness of its name (neighbours of one object stay apart) */
  function objColour(k, name) {
    return 'hsl(' + ((k * 137.508 + 25) % 360).toFixed(0) + ',52%,' + (70 + TV.hash(name) % 17) + '%)';
  }

  /*
   * Squarified layout of values (descending, all > 0) in the box x, y, w, h: the rectangles, in
   * the order of the values. A row is filled along the shorter side while adding the next value
   * does not make its worst aspect ratio worse.
   */
  function squarify(values, x, y, w, h) {
    var out = [], total = 0, i;
    for (i = 0; i < values.length; i++) total += values[i];
    if (total <= 0 || w <= 0 || h <= 0) return out;
    var scale = (w * h) / total, start = 0;
    function worst(sum, lo, hi, side) {
      var mx = values[lo] * scale, mn = values[hi - 1] * scale, s2 = sum * sum * scale * scale;
      return Math.max((side * side * mx) / s2, s2 / (side * side * mn));
    }
    while (start < values.length) {
      var side = Math.min(w, h), sum = values[start], end = start + 1;
      while (end < values.length &&
             worst(sum + values[end], start, end + 1, side) <= worst(sum, start, end, side)) {
        sum += values[end];
        end++;
      }
      var thick = (sum * scale) / side, pos = 0;
      for (i = start; i < end; i++) {
        var len = (values[i] * scale) / thick;
        if (w >= h) out.push({ x: x, y: y + pos, w: thick, h: len });
        else out.push({ x: x + pos, y: y, w: len, h: thick });
        pos += len;
      }
      if (w >= h) { x += thick; w -= thick; } else { y += thick; h -= thick; }
      start = end;
    }
    return out;
  }

  /* the rectangles of tree `root` (a node [k, total, self, children]) in W x H */
  function layout(root, W, H) {
    var rects = [];
    (function place(n, x, y, w, h, depth) {
      if (rects.length >= MAXRECTS || w < MIN || h < MIN) return;
      var r = { k: n[0], t: TV.num(n[1]), s: TV.num(n[2]), x: x, y: y, w: w, h: h, d: depth };
      rects.push(r);
      var kids = (n[3] || []).filter(function (c) { return TV.num(c[1]) > 0; });
      if (!kids.length) return;
      /* callees go inside only under a header line for the name: a box too small for one
         stays whole (nested boxes without names are noise) */
      if (w < 40 || h < HEAD + 2 * MIN + 2 * PAD) return;
      var ix = x + PAD, iy = y + PAD + HEAD, iw = w - 2 * PAD, ih = h - 2 * PAD - HEAD;
      /* the function's own cost keeps its share of the box, left empty */
      var items = kids.map(function (c) { return { v: TV.num(c[1]), n: c }; });
      var kidSum = items.reduce(function (a, b) { return a + b.v; }, 0);
      if (r.t > kidSum) items.push({ v: r.t - kidSum, n: null });
      items.sort(function (a, b) { return b.v - a.v; });
      var boxes = squarify(items.map(function (it) { return it.v; }), ix, iy, iw, ih);
      items.forEach(function (it, j) {
        var b = boxes[j];
        if (it.n && b) place(it.n, b.x, b.y, b.w, b.h, depth + 1);
      });
    })(root, 0, 0, W, H, 0);
    return rects;
  }

  /* the map of answer r (tree at r[which]) in body */
  function drawMap(body, r, which, title) {
    var tree = which === 'tree' ? r.tree : r.callers;
    /* the flame tree under a function has a root without a function above the function's node */
    while (tree && tree[0] < 0 && tree[3] && tree[3].length === 1) tree = tree[3][0];
    body.textContent = '';
    if (!tree || !(TV.num(tree[1]) > 0)) {
      body.appendChild(TV.el('p', { class: 'msg muted' }, 'No cost in ' + TV.evName() + '.'));
      return;
    }
    var names = r.names || [], ids = r.ids || [], objs = r.objs || [], objects = r.objects || [];
    var W = Math.max(240, body.clientWidth - 4);
    var H = Math.max(240, Math.min(body.clientHeight - 40, Math.round(W * 0.62)));
    var rects = layout(tree, W, H), total = TV.num(tree[1]);
    var used = {};
    var s = '<svg class="tmap" xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + H +
      '" role="img" aria-label="' + TV.esc(title) + '">';
    rects.forEach(function (q, i) {
      var name = q.k >= 0 ? names[q.k] : '(the program)';
      var ok = q.k >= 0 && objs[q.k] !== undefined ? objs[q.k] : -1;
      if (ok >= 0) used[ok] = true;
      var obj = ok >= 0 ? objects[ok] || '(no object)' : '';
      var tip = name + '\n' + TV.fmt(q.t) + ' ' + TV.evName() + ' (' + (100 * q.t / total).toFixed(2) +
        '% of the map, ' + TV.pct(q.t) + ' of the total)\nself ' + TV.fmt(q.s) + (obj ? '\n' + obj : '');
      var cls = 'tm' + (q.k >= 0 && ids[q.k] === TV.state.fn ? ' me' : '');
      s += '<g class="' + cls + '" data-i="' + i + '" data-d="' + q.d + '" data-t="' + q.t + '"' +
        (q.k >= 0 ? ' data-id="' + ids[q.k] + '" data-obj="' + TV.esc(obj) + '"' : '') +
        '><rect x="' + q.x.toFixed(1) + '" y="' + q.y.toFixed(1) + '" width="' + q.w.toFixed(1) +
        '" height="' + q.h.toFixed(1) + '" fill="' + (ok >= 0 ? objColour(ok, name) : '#d9dbe0') +
        '"><title>' + TV.esc(tip) + '</title></rect>';
      var fit = Math.floor((q.w - 6) / CHARW);
      if (fit >= 3 && q.h >= 13) {
        var label = TV.shortName(name);
        if (q.w > 90 && q.h >= 26) label += ' ' + (100 * q.t / total).toFixed(1) + '%';
        if (label.length > fit) label = label.slice(0, fit - 1) + '…';
        s += '<text x="' + (q.x + 3).toFixed(1) + '" y="' + (q.y + 11).toFixed(1) + '">' +
          TV.esc(label) + '</text>';
      }
      s += '</g>';
    });
    s += '</svg>';
    var legend = TV.el('div', { class: 'tm-legend' });
    Object.keys(used).map(Number).sort(function (a, b) { return a - b; }).forEach(function (k) {
      legend.appendChild(TV.el('span', null, [
        TV.el('i', { style: 'background:' + objColour(k, '') }), objects[k] || '(no object)']));
    });
    body.appendChild(legend);
    var holder = TV.el('div', { class: 'tm-svg' });
    holder.innerHTML = s;
    body.appendChild(holder);
  }

  /* the pane: one map at a time (state.map: 'callee' or 'caller'), kept per question */
  var shown = { key: null, data: null };
  var body = TV.$('m-body'), which = TV.$('m-which');
  function render() {
    var m = TV.state.map;
    which.value = m;
    if (shown.data) drawMap(body, shown.data, m === 'caller' ? 'callers' : 'tree', m + ' map');
  }
  body.addEventListener('click', function (ev) {
    var g = ev.target.closest('g.tm[data-id]');
    if (g) TV.select(Number(g.getAttribute('data-id')), 'push');
  });
  which.addEventListener('change', function () {
    TV.set({ map: which.value }, 'push');
  });
  window.addEventListener('resize', function () {
    if (TV.state.tab === 'maps') render();
  });
  TV.panes.maps = {
    needsFn: true,
    key: function (s) { return [s.fn, s.ev, s.parts, s.map].join('|'); },
    load: function (s, failed) {
      var k = this.key(s), pane = this;
      body.setAttribute('aria-busy', 'true');
      /* the callee map is the flame graph under the function; the caller map the sandwich's
         callers */
      TV.api(s.map === 'caller' ? 'sandwich' : 'flame', { ev: s.ev, id: s.fn }).then(function (r) {
        if (pane.key(TV.state) !== k) return;
        body.removeAttribute('aria-busy');
        shown.key = k;
        shown.data = r;
        TV.$('p-maps').querySelector('.f-note').textContent =
          r.kind === 'estimated' ? 'estimated from the call arcs' : '';
        render();
      }).catch(function (err) {
        if (pane.key(TV.state) !== k) return;
        body.removeAttribute('aria-busy');
        TV.fail(body, err);
        failed();
      });
    },
    update: render
  };
  TV.maps = { squarify: squarify, layout: layout, PAD: PAD, HEAD: HEAD };
})();
