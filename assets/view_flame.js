/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tally view: the flame graph, the icicle (the same tree drawn root on top) and the sandwich
 * (the callers of the selected function above it, its callees below), drawn in SVG from the
 * trees of api/flame and api/sandwich: a node is [k, total, self, children], k an index into
 * names/ids (-1: the root). A click on a frame zooms to it (flame, icicle) and selects its
 * function everywhere; the search box highlights the frames whose names match and says which
 * share of the cost they make (a frame under a matching frame is counted once).
 */
(function () {
  'use strict';
  var ROWH = 17, CHARW = 6.3;

  /* the tree as flat arrays: node i has its name index k, total t, depth d, start x (in cost
     units from the root's start), parent p */
  function flatten(tree) {
    var f = { k: [], t: [], s: [], d: [], x: [], p: [], kids: [], maxd: 0, b: [] };
    function walk(n, d, x, p) {
      var i = f.k.length;
      f.k.push(n[0]);
      f.t.push(TV.num(n[1]));
      f.s.push(TV.num(n[2]));
      f.b.push(n.length > 4 ? TV.num(n[4]) : null); /* the base's cost of the same stack */
      f.d.push(d);
      f.x.push(x);
      f.p.push(p);
      f.kids.push([]);
      if (d > f.maxd) f.maxd = d;
      var cx = x;
      (n[3] || []).forEach(function (c) {
        var j = walk(c, d + 1, cx, i);
        f.kids[i].push(j);
        cx += f.t[j];
      });
      return i;
    }
    walk(tree, 0, 0, -1);
    return f;
  }

  function hue(name) {
    var h = TV.hash(name);
    /* warm: orange to yellow; blue is kept for the search's highlight */
    return 'hsl(' + (18 + (h % 34)) + ',' + (62 + (h >> 6) % 25) + '%,' + (60 + (h >> 11) % 16) + '%)';
  }

  /* with a base: white for no change, to red (more) or blue (less) at a change of 5% of the
     base's total or more */
  function changeFill(d, bt) {
    var a = bt ? Math.min(1, Math.abs(d) / (0.05 * bt)) : 0;
    var c = d > 0 ? [178, 24, 43] : [33, 102, 172];
    var mix = function (k) { return Math.round(255 + (c[k] - 255) * a); };
    return 'rgb(' + mix(0) + ',' + mix(1) + ',' + mix(2) + ')';
  }

  /* draws flat tree f into body; o: {names, ids, zoom (node), orient 'up'|'down', rx (RegExp or
     null), rootName}; returns {hits: matched share of the zoomed node's cost, all: of the root} */
  function draw(body, f, o) {
    var W = Math.max(200, body.clientWidth - 2);
    var z = o.zoom || 0, zt = f.t[z] || 1, zx = f.x[z];
    var scale = W / zt;
    var parts = [], maxd = 0, hitAll = 0, hitZoom = 0;
    var me = TV.state.fn;
    var anc = {};
    for (var a = z; a >= 0; a = f.p[a]) anc[a] = true;
    function nameOf(i) {
      return f.k[i] < 0 ? o.rootName : o.names[f.k[i]];
    }
    function frame(i, x, w, hit) {
      var name = nameOf(i), d = f.d[i];
      if (d > maxd) maxd = d;
      var cls = 'fr';
      if (o.rx) cls += hit ? ' hit' : ' dim';
      if (f.k[i] >= 0 && o.ids[f.k[i]] === me) cls += ' me';
      var label = '';
      var fit = Math.floor((w - 6) / CHARW);
      if (fit >= 3) {
        label = TV.shortName(name);
        if (label.length > fit) label = label.slice(0, fit - 1) + '…';
      }
      parts.push({ i: i, x: x, w: w, d: d, cls: cls, name: name, label: label });
    }
    /* the ancestors of the zoomed frame: full width */
    var path = [];
    for (a = f.p[z]; a >= 0; a = f.p[a]) path.push(a);
    path.reverse().forEach(function (i) {
      frame(i, 0, W, o.rx && o.rx.test(nameOf(i)));
    });
    /* the zoomed frame and everything under it that is wider than half a pixel */
    (function walk(i, under) {
      var w = f.t[i] * scale;
      if (w < 0.5) return;
      var hit = !!(o.rx && o.rx.test(nameOf(i)));
      if (hit && !under) hitZoom += f.t[i];
      frame(i, (f.x[i] - zx) * scale, w, hit || under);
      f.kids[i].forEach(function (j) { walk(j, under || hit); });
    })(z, false);
    if (o.rx) {
      (function all(i, under) {
        var hit = o.rx.test(nameOf(i));
        if (hit && !under) { hitAll += f.t[i]; return; }
        f.kids[i].forEach(function (j) { all(j, under); });
      })(0, false);
    }
    var H = (maxd + 1) * ROWH;
    var s = '<svg class="flame" xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + H +
      '" role="img" aria-label="' + (o.orient === 'up' ? 'flame graph' : 'icicle') + '">';
    var root = f.t[0] || 1;
    parts.forEach(function (p) {
      var y = o.orient === 'up' ? H - (p.d + 1) * ROWH : p.d * ROWH;
      var base = f.b[p.i], bt = TV.baseTotal();
      var tip = p.name + '\n' + TV.fmt(f.t[p.i]) + ' ' + TV.evName() + ' (' +
        (100 * f.t[p.i] / root).toFixed(2) + '% of the graph' +
        (f.t[p.i] && z ? ', ' + (100 * f.t[p.i] / zt).toFixed(2) + '% of the zoomed frame' : '') +
        ')\nself ' + TV.fmt(f.s[p.i]) + (base !== null ? '\nbase ' + TV.fmt(base) + ', change ' +
        TV.delta(f.t[p.i], base).text + ' (' + TV.delta(f.t[p.i], base).pct + ' of the base\'s total)' : '');
      var fill = f.k[p.i] < 0 ? '#c9ccd3' : base !== null ? changeFill(f.t[p.i] - base, bt) : hue(p.name);
      if (base !== null && bt && Math.abs(f.t[p.i] - base) > 0.03 * bt) p.cls += ' dark';
      s += '<g class="' + p.cls + '" data-i="' + p.i + '"><rect x="' + p.x.toFixed(2) + '" y="' + y +
        '" width="' + Math.max(0.5, p.w - 0.5).toFixed(2) + '" height="' + (ROWH - 1) + '" fill="' +
        fill + '"><title>' + TV.esc(tip) + '</title></rect>';
      if (p.label) {
        s += '<text x="' + (p.x + 3).toFixed(2) + '" y="' + (y + ROWH - 5) + '">' + TV.esc(p.label) +
          '</text>';
      }
      s += '</g>';
    });
    s += '</svg>';
    body.innerHTML = s;
    return { zoom: hitZoom / zt, all: hitAll / root };
  }

  function regex(text, out) {
    if (!text) return null;
    var flags = '';
    if (text.startsWith('(?i)')) { text = text.slice(4); flags = 'i'; }
    try {
      return new RegExp(text, flags);
    } catch (e) {
      out.bad = e.message;
      return null;
    }
  }

  /* ---- flame graph and icicle: one tree (api/flame), two panes ---- */
  var flame = { key: null, data: null, flat: null, busy: null };
  var zoom = { flame: 0, icicle: 0 };
  function paneOf(tab) { return TV.$('p-' + tab); }
  function render(tab) {
    var pane = paneOf(tab), body = pane.querySelector('.fbody');
    var d = flame.data;
    if (!d) return;
    var note = pane.querySelector('.f-note'), ff = TV.state.ff, focus = pane.querySelector('.f-focus');
    var under = ff !== null && d.ids ? d.names[d.ids.indexOf(ff)] : null;
    note.textContent = (d.kind === 'estimated' ? 'estimated from the call arcs' : '') +
      (ff !== null ? (d.kind === 'estimated' ? ' · ' : '') + 'under ' +
       (under ? TV.shortName(under) : 'function ' + ff) : '');
    focus.setAttribute('aria-pressed', ff !== null ? 'true' : 'false');
    focus.textContent = ff !== null ? 'The whole program' : 'Under the selection';
    if (!TV.num(d.total) || !flame.flat.t[0]) {
      body.innerHTML = '';
      body.appendChild(TV.el('p', { class: 'msg muted' }, 'No cost in ' + TV.evName() + '.'));
      return;
    }
    var input = pane.querySelector('.f-search'), bad = {};
    if (input.value !== TV.state.fq && document.activeElement !== input) input.value = TV.state.fq;
    var rx = regex(input.value, bad);
    input.classList.toggle('bad', !!bad.bad);
    var m = draw(body, flame.flat, { names: d.names, ids: d.ids, zoom: zoom[tab],
                                     orient: tab === 'flame' ? 'up' : 'down', rx: rx,
                                     rootName: ff !== null ? (under || 'function ' + ff) + ' (all its calls)' :
                                       'all (' + TV.evName() + ')' });
    var mt = pane.querySelector('.f-match');
    if (bad.bad) {
      mt.textContent = 'bad regex: ' + bad.bad;
    } else if (rx) {
      mt.textContent = 'matched: ' + (100 * m.all).toFixed(2) + '% of the graph' +
        (zoom[tab] ? ', ' + (100 * m.zoom).toFixed(2) + '% of the zoomed frame' : '');
    } else {
      mt.textContent = '';
    }
    if (tab === 'flame' && !flame.scrolled) {
      flame.scrolled = true;
      body.scrollTop = body.scrollHeight;
    }
  }
  function flamePane(tab) {
    return {
      needsFn: false,
      key: function (s) { return [s.ev, s.parts, s.ff].join('|'); },
      load: function (s, failed) {
        var k = this.key(s), body = paneOf(tab).querySelector('.fbody');
        if (flame.key === k && flame.data) {
          render(tab);
          return;
        }
        body.textContent = '';
        body.appendChild(TV.el('p', { class: 'msg muted' }, 'Loading…'));
        if (flame.busy !== k) {
          flame.busy = k;
          flame.req = TV.api('flame', { ev: s.ev, id: s.ff });
        }
        flame.req.then(function (r) {
          if (TV.flameKey() !== k) return;
          if (flame.key !== k) {
            flame.key = k;
            flame.data = r;
            flame.flat = flatten(r.tree);
            flame.scrolled = false;
            zoom.flame = zoom.icicle = 0;
          }
          flame.busy = null;
          if (TV.state.tab === tab) render(tab);
        }).catch(function (err) {
          if (TV.flameKey() !== k) return;
          flame.busy = null;
          TV.fail(body, err);
          failed();
        });
      },
      update: function () { render(tab); }
    };
  }
  TV.flameKey = function () { return [TV.state.ev, TV.state.parts, TV.state.ff].join('|'); };
  TV.panes.flame = flamePane('flame');
  TV.panes.icicle = flamePane('icicle');

  ['flame', 'icicle'].forEach(function (tab) {
    var pane = paneOf(tab), body = pane.querySelector('.fbody');
    body.addEventListener('click', function (ev) {
      var g = ev.target.closest('g.fr');
      if (!g || !flame.flat) return;
      var i = Number(g.getAttribute('data-i')), k = flame.flat.k[i];
      zoom[tab] = i;
      if (k >= 0) TV.select(flame.data.ids[k], 'push');
      else render(tab);
    });
    pane.querySelector('.f-focus').addEventListener('click', function () {
      TV.set({ ff: TV.state.ff !== null ? null : TV.state.fn }, 'push');
    });
    pane.querySelector('.f-reset').addEventListener('click', function () {
      zoom[tab] = 0;
      render(tab);
    });
    var timer = 0, input = pane.querySelector('.f-search');
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () { TV.set({ fq: input.value }, 'replace'); }, 200);
    });
  });

  /* ---- sandwich ---- */
  var sand = { key: null, data: null };
  function renderSandwich() {
    var body = TV.$('w-body'), r = sand.data;
    if (!r) return;
    var names = r.names || [], ids = r.ids || [];
    var cur = TV.current && TV.current(), me = cur && cur.id === TV.state.fn ? cur.name : '';
    body.textContent = '';
    TV.$('p-sandwich').querySelector('.f-note').textContent =
      r.kind === 'estimated' ? 'estimated from the call arcs' : '';
    [['callers', 'up', 'Callers: the stacks above ' + (me ? TV.shortName(me) : 'the function') +
      ' (it is at the bottom)'],
     ['callees', 'down', 'Callees: what ' + (me ? TV.shortName(me) : 'the function') +
      ' runs (merged over its call sites)']].forEach(function (w) {
      var sec = TV.el('div', { class: 'wsec', 'data-side': w[0] });
      sec.appendChild(TV.el('div', { class: 'wtitle' }, w[2]));
      var holder = TV.el('div', { class: 'wsvg' });
      sec.appendChild(holder);
      body.appendChild(sec);
      var tree = r[w[0]];
      if (!tree || !TV.num(tree[1])) {
        holder.appendChild(TV.el('p', { class: 'msg muted' }, 'No cost in ' + TV.evName() + '.'));
        return;
      }
      var flat = flatten(tree);
      holder.flat = flat;
      draw(holder, flat, { names: names, ids: ids, zoom: 0, orient: w[1], rx: null,
                           rootName: me || '(the function)' });
    });
  }
  TV.panes.sandwich = {
    needsFn: true,
    key: function (s) { return [s.fn, s.ev, s.parts].join('|'); },
    load: function (s, failed) {
      var body = TV.$('w-body'), k = this.key(s);
      body.setAttribute('aria-busy', 'true');
      TV.api('sandwich', { id: s.fn, ev: s.ev }).then(function (r) {
        if (TV.panes.sandwich.key(TV.state) !== k) return;
        body.removeAttribute('aria-busy');
        sand.key = k;
        sand.data = r;
        renderSandwich();
      }).catch(function (err) {
        if (TV.panes.sandwich.key(TV.state) !== k) return;
        body.removeAttribute('aria-busy');
        TV.fail(body, err);
        failed();
      });
    },
    update: renderSandwich
  };
  TV.$('w-body').addEventListener('click', function (ev) {
    var g = ev.target.closest('g.fr'), holder = g && g.closest('.wsvg');
    if (!g || !holder || !holder.flat) return;
    var k = holder.flat.k[Number(g.getAttribute('data-i'))];
    var ids = sand.data.ids || [];
    if (k >= 0 && ids[k] !== undefined) TV.select(ids[k], 'push');
  });

  /* a new width: the visible drawing again */
  var rt = 0;
  window.addEventListener('resize', function () {
    clearTimeout(rt);
    rt = setTimeout(function () {
      var t = TV.state.tab;
      if ((t === 'flame' || t === 'icicle') && flame.data) render(t);
      if (t === 'sandwich') renderSandwich();
    }, 120);
  });
  TV.flame = { data: function () { return flame.data; }, zoom: zoom };
})();
