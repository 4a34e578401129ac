/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tally view: the right half. The selected function's header and its callers and callees
 * (api/function), the tabs, and three of the panes: the call graph (api/graph's SVG inlined,
 * its nodes g.node#f<ID> select functions), the source (api/source) and the complexity plot
 * (api/complexity). A pane loads only when it is shown and what it shows has changed (its key).
 */
(function () {
  'use strict';
  var fnGen = 0;
  TV.panes = {}; /* tab name -> {key(state), load(state, body)} */
  var loaded = {}; /* tab name -> the key it shows */

  /* ---- the selected function ---- */
  function costLine(label, v, est) {
    return TV.el('span', { 'data-v': String(v), class: 'c-' + label.toLowerCase() },
                 [TV.el('b', null, label + ' '), (est ? '~' : '') + TV.fmt(v) + ' (' + TV.pct(v) + ')']);
  }
  function relTable(where, list, none, countEl) {
    var e = TV.state.ev;
    where.textContent = '';
    countEl.textContent = list.length ? '(' + list.length + ')' : '';
    if (!list.length) {
      where.appendChild(TV.el('div', { class: 'none' }, none));
      return;
    }
    list = list.slice().sort(function (a, b) { return TV.num(b.incl[e]) - TV.num(a.incl[e]); });
    var t = TV.el('table'), tb = TV.el('tbody');
    list.forEach(function (r) {
      var tr = TV.el('tr', { 'data-id': r.id, title: r.name + '\n' + TV.fmt(r.calls) + ' calls, ' +
                             TV.fmt(r.incl[e]) + ' ' + TV.evName() + ' (' + TV.pct(r.incl[e]) + ')' +
                             (r.base_incl ? '\nbase: ' + TV.fmt(r.base_calls) + ' calls, ' +
                              TV.fmt(r.base_incl[e]) : '') });
      tr.appendChild(TV.el('td', { class: 'n', 'data-v': r.calls }, TV.short(r.calls) + '×'));
      tr.appendChild(TV.el('td', { class: 'i', 'data-v': String(r.incl[e]) },
                           TV.short(r.incl[e]) + ' ' + TV.pct(r.incl[e])));
      tr.appendChild(TV.el('td', { class: 'f' }, TV.shortName(r.name)));
      tb.appendChild(tr);
    });
    t.appendChild(tb);
    where.appendChild(t);
  }
  function showFunction(f) {
    var e = TV.state.ev, box = TV.$('v-fn');
    box.textContent = '';
    box.setAttribute('data-id', f.id);
    box.appendChild(TV.el('h2', { id: 'v-fname', title: f.name },
                          f.name + (f.cycle ? ' <cycle ' + f.cycle + '>' : '')));
    box.appendChild(TV.el('div', { class: 'where' },
                          (f.file || '(no file)') + ' · ' + (f.obj || '(no object)')));
    var costs = TV.el('div', { class: 'costs' });
    costs.appendChild(costLine('Incl', f.incl[e], f.est));
    costs.appendChild(costLine('Self', f.self[e], false));
    costs.appendChild(TV.el('span', { class: 'c-calls', 'data-v': f.calls },
                            [TV.el('b', null, 'Calls '), TV.fmt(f.calls)]));
    if (TV.meta.base && f.base_incl) {
      var dl = TV.delta(f.incl[e], f.base_incl[e]);
      costs.appendChild(TV.el('span', { class: 'c-delta ' + dl.cls, 'data-v': String(dl.d),
                                        title: 'the base: inclusive ' + TV.fmt(f.base_incl[e]) +
                                          ', self ' + TV.fmt(f.base_self[e]) + ', calls ' +
                                          TV.fmt(f.base_calls) },
                              [TV.el('b', null, 'Δ Incl '), dl.text + ' (' + dl.pct + ')']));
      costs.appendChild(TV.el('span', { class: 'muted' }, 'base: incl ' + TV.fmt(f.base_incl[e]) +
                              ', self ' + TV.fmt(f.base_self[e])));
    }
    costs.appendChild(TV.el('span', { class: 'muted' }, TV.evName() +
                            (f.est ? ' · ~ inclusive cost estimated (recursion)' : '')));
    box.appendChild(costs);
    relTable(TV.$('v-callers'), f.callers, 'none (a root of the program)', TV.$('v-ncallers'));
    relTable(TV.$('v-callees'), f.callees, 'none (a leaf)', TV.$('v-ncallees'));
  }
  var current = null; /* the api/function answer shown */
  function loadFunction() {
    var s = TV.state, g = ++fnGen;
    if (s.fn === null) return;
    TV.api('function', { id: s.fn }).then(function (f) {
      if (g !== fnGen) return;
      current = f;
      showFunction(f);
    }).catch(function (err) {
      if (g !== fnGen) return;
      current = null;
      TV.fail(TV.$('v-fn'), err);
      TV.$('v-callers').textContent = '';
      TV.$('v-callees').textContent = '';
    });
  }
  TV.current = function () { return current; };

  /* ---- tabs ---- */
  function showTab() {
    var s = TV.state;
    Array.prototype.forEach.call(document.querySelectorAll('#v-tabs [data-tab]'), function (b) {
      b.setAttribute('aria-selected', b.getAttribute('data-tab') === s.tab ? 'true' : 'false');
    });
    Array.prototype.forEach.call(document.querySelectorAll('#v-panes .pane'), function (p) {
      p.hidden = p.id !== 'p-' + s.tab;
    });
    var pane = TV.panes[s.tab];
    if (!pane || s.fn === null && pane.needsFn) return;
    var k = pane.key(s);
    if (loaded[s.tab] !== k) {
      loaded[s.tab] = k;
      pane.load(s, function () { delete loaded[s.tab]; });
    } else if (pane.update) {
      pane.update(s);
    }
  }
  TV.reloadTab = function (tab) { delete loaded[tab]; if (TV.state.tab === tab) showTab(); };

  TV.on('start', function () {
    TV.$('v-rel').addEventListener('click', function (ev) {
      var tr = ev.target.closest('tr[data-id]');
      if (tr) TV.select(Number(tr.getAttribute('data-id')), 'push');
    });
    Array.prototype.forEach.call(document.querySelectorAll('#v-tabs [data-tab]'), function (b) {
      b.addEventListener('click', function () {
        TV.set({ tab: b.getAttribute('data-tab') }, 'push');
      });
    });
    graphControls();
    if (TV.state.fn !== null) loadFunction();
    showTab();
  });
  TV.on('state', function (c) {
    var o = c.old, n = c.now;
    var partsChanged = String(o.parts) !== String(n.parts);
    if (o.fn !== n.fn || partsChanged || (o.ev !== n.ev && current)) {
      if (o.fn !== n.fn || partsChanged) loadFunction();
      else showFunction(current);
    }
    TV.$('g-up').value = String(n.up);
    TV.$('g-down').value = String(n.down);
    showTab();
  });

  /* ---- the call graph ---- */
  var gScale = 0, gFit = true, gSize = null;
  function graphControls() {
    ['g-up', 'g-down'].forEach(function (id) {
      var sel = TV.$(id);
      for (var i = 0; i <= 6; i++) sel.appendChild(TV.el('option', { value: i }, String(i)));
      sel.value = String(TV.state[id === 'g-up' ? 'up' : 'down']);
      sel.addEventListener('change', function () {
        var p = {};
        p[id === 'g-up' ? 'up' : 'down'] = Number(sel.value);
        TV.set(p, 'push');
      });
    });
    TV.$('g-fit').addEventListener('click', function () { gFit = true; sizeGraph(); });
    TV.$('g-in').addEventListener('click', function () { zoomGraph(1.25); });
    TV.$('g-out').addEventListener('click', function () { zoomGraph(0.8); });
    TV.$('g-body').addEventListener('click', function (ev) {
      var g = ev.target.closest && ev.target.closest('g.node');
      if (!g) return;
      var m = /^f(\d+)$/.exec(g.id);
      if (m) TV.select(Number(m[1]), 'push');
    });
  }
  function zoomGraph(f) {
    if (!gSize) return;
    gFit = false;
    gScale = Math.max(0.05, Math.min(8, gScale * f));
    sizeGraph();
  }
  function sizeGraph() {
    var body = TV.$('g-body'), svg = body.querySelector('svg');
    if (!svg || !gSize) return;
    if (gFit) {
      var w = body.clientWidth - 8, h = body.clientHeight - 8;
      /* the whole graph in sight, but never so small that its labels cannot be read:
         past that the pane scrolls (the selected node is brought into sight below) */
      gScale = Math.max(Math.min(1, w / gSize.w, Math.max(h, 200) / gSize.h), 0.6);
    }
    svg.setAttribute('width', (gSize.w * gScale).toFixed(1));
    svg.setAttribute('height', (gSize.h * gScale).toFixed(1));
    TV.$('g-scale').textContent = Math.round(gScale * 100) + '%';
    var sel = svg.querySelector('g.node.sel') || svg.getElementById('f' + TV.state.fn);
    if (sel) {
      var r = sel.getBoundingClientRect(), b = body.getBoundingClientRect();
      body.scrollLeft += r.left + r.width / 2 - (b.left + b.width / 2);
      body.scrollTop += r.top + r.height / 2 - (b.top + b.height / 2);
    }
  }
  /* the SVG of the server, parsed as XML and cleaned of anything active */
  function cleanSvg(text) {
    var doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    var root = doc.documentElement;
    if (!root || root.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length) {
      throw new Error('the call graph is not a valid SVG document');
    }
    Array.prototype.forEach.call(root.querySelectorAll('script, foreignObject'), function (x) {
      x.remove();
    });
    Array.prototype.forEach.call(root.querySelectorAll('*'), function (x) {
      Array.prototype.slice.call(x.attributes).forEach(function (a) {
        if (/^on/i.test(a.name) || (/href$/i.test(a.name) && !/^#/.test(a.value))) {
          x.removeAttribute(a.name);
        }
      });
    });
    return document.importNode(root, true);
  }
  TV.panes.graph = {
    needsFn: true,
    key: function (s) { return [s.fn, s.ev, s.up, s.down, s.parts].join('|'); },
    load: function (s, failed) {
      var body = TV.$('g-body');
      body.setAttribute('aria-busy', 'true');
      if (!body.firstChild) body.appendChild(TV.el('p', { class: 'msg muted' }, 'Loading…'));
      var k = TV.panes.graph.key(s);
      TV.api('graph', { id: s.fn, ev: s.ev, up: s.up, down: s.down }, true).then(function (text) {
        if (TV.panes.graph.key(TV.state) !== k) return; /* a later question is under way */
        var svg = cleanSvg(text);
        body.textContent = '';
        body.appendChild(svg);
        var vb = svg.viewBox && svg.viewBox.baseVal;
        if (vb && vb.width) {
          gSize = { w: vb.width, h: vb.height };
        } else {
          gSize = { w: parseFloat(svg.getAttribute('width')) || 600,
                    h: parseFloat(svg.getAttribute('height')) || 400 };
          svg.setAttribute('viewBox', '0 0 ' + gSize.w + ' ' + gSize.h);
        }
        sizeGraph();
        body.removeAttribute('aria-busy');
      }).catch(function (err) {
        if (TV.panes.graph.key(TV.state) !== k) return;
        body.removeAttribute('aria-busy');
        gSize = null;
        TV.fail(body, err);
        failed();
      });
    }
  };

  /* ---- the source ---- */
  function editorLink(path, line) {
    var tpl = TV.meta.editor;
    if (!tpl || !path) return null;
    var href = tpl.split('{path}').join(encodeURI(path)).split('{line}').join(String(line || 1));
    return TV.el('a', { href: href, class: 'editor', title: 'open ' + path + ':' + (line || 1) +
                        ' in the editor' }, 'open in editor');
  }
  function srcCell(cls, v, maxv) {
    var td = TV.el('td', { class: cls });
    if (v === null || v === undefined) return td;
    td.setAttribute('data-v', String(v));
    td.textContent = TV.fmt(v);
    td.title = TV.fmt(v) + ' ' + TV.evName() + ' (' + TV.pct(v) + ' of the total)';
    var a = maxv ? Math.min(1, Math.abs(TV.num(v)) / maxv) : 0;
    if (a > 0) td.style.background = 'rgba(230, 150, 40, ' + (0.08 + 0.55 * a).toFixed(3) + ')';
    return td;
  }
  function showSource(r, body) {
    var e = TV.state.ev;
    body.textContent = '';
    if (!r.files.length) {
      body.appendChild(TV.el('p', { class: 'msg muted' }, 'No line of this function has a cost.'));
      return;
    }
    var hottest = null, hv = -1;
    r.files.forEach(function (f) {
      var div = TV.el('div', { class: 'sfile' });
      var first = null, maxv = 0;
      f.lines.forEach(function (l) {
        if (l.incl) maxv = Math.max(maxv, Math.abs(TV.num(l.incl[e])));
        if (l.self && first === null) first = l.n;
      });
      var h = TV.el('h4', null, [f.file, ' ']);
      if (f.path && f.path !== f.file) h.appendChild(TV.el('span', { class: 'muted' }, f.path + ' '));
      if (f.why) {
        h.appendChild(TV.el('span', { class: 'muted' }, '(' + f.why + (f.lines.length && f.lines[0].text === null ?
          '; only the lines with a cost are listed' : '') + ') '));
      }
      var link = editorLink(f.path, first);
      if (link) h.appendChild(link);
      div.appendChild(h);
      var t = TV.el('table', { class: 'src', 'data-file': f.file });
      var head = TV.el('tr', { class: 'muted' }, [TV.el('td', { class: 'ln' }, 'line'),
        TV.el('td', { class: 'sc' }, 'Self ' + TV.evName()), TV.el('td', { class: 'ic' }, 'Incl ' +
        TV.evName()), TV.el('td', { class: 'code' }, '')]);
      t.appendChild(head);
      f.lines.forEach(function (l) {
        var v = l.incl ? Math.abs(TV.num(l.incl[e])) : 0;
        var tr = TV.el('tr', { 'data-n': l.n, class: v > 0 ? 'hot' : null });
        var ln = TV.el('td', { class: 'ln' });
        var el = TV.meta.editor && f.path ? editorLink(f.path, l.n) : null;
        if (el) { el.textContent = String(l.n); ln.appendChild(el); } else ln.textContent = String(l.n);
        tr.appendChild(ln);
        tr.appendChild(srcCell('sc', l.self ? l.self[e] : null, maxv));
        tr.appendChild(srcCell('ic', l.incl ? l.incl[e] : null, maxv));
        tr.appendChild(TV.el('td', { class: 'code' }, l.text === null ? '' : l.text));
        t.appendChild(tr);
        if (v > hv) { hv = v; hottest = tr; }
        (l.calls || []).forEach(function (c) {
          var ct = TV.el('tr', { class: 'call', 'data-id': c.id, 'data-line': l.n,
                                 title: c.name });
          ct.appendChild(TV.el('td', { class: 'ln' }, ''));
          ct.appendChild(TV.el('td', { class: 'sc' }, TV.fmt(c.calls) + '×'));
          var ic = srcCell('ic', c.incl[e], 0);
          ct.appendChild(ic);
          ct.appendChild(TV.el('td', { class: 'code' }, '\u21b3 calls ' + TV.shortName(c.name) +
                               '  (' + TV.pct(c.incl[e]) + ')'));
          t.appendChild(ct);
        });
      });
      div.appendChild(t);
      body.appendChild(div);
    });
    if (hottest) {
      var b = body.getBoundingClientRect(), r2 = hottest.getBoundingClientRect();
      body.scrollTop += r2.top - b.top - body.clientHeight / 3;
    }
  }
  TV.panes.source = {
    needsFn: true,
    key: function (s) { return [s.fn, s.parts].join('|'); },
    load: function (s, failed) {
      var body = TV.$('s-body');
      body.setAttribute('aria-busy', 'true');
      if (!body.firstChild) body.appendChild(TV.el('p', { class: 'msg muted' }, 'Loading…'));
      var k = TV.panes.source.key(s);
      TV.api('source', { id: s.fn }).then(function (r) {
        if (TV.panes.source.key(TV.state) !== k) return;
        body.removeAttribute('aria-busy');
        TV.panes.source.data = r;
        showSource(r, body);
      }).catch(function (err) {
        if (TV.panes.source.key(TV.state) !== k) return;
        body.removeAttribute('aria-busy');
        TV.fail(body, err);
        failed();
      });
    }
  };
  TV.on('state', function (c) {
    if (c.old.ev !== c.now.ev && TV.panes.source.data && c.now.tab === 'source') {
      showSource(TV.panes.source.data, TV.$('s-body'));
    }
  });
  TV.$('s-body').addEventListener('click', function (ev) {
    var tr = ev.target.closest('tr.call');
    if (tr && ev.target.closest('td.code')) TV.select(Number(tr.getAttribute('data-id')), 'push');
  });

  /* ---- complexity (an aprof report) ---- */
  /* points [n, worst, average, best, calls]: the average as a dot, worst..best as a bar; the
     model a + b * n^c as a dashed curve */
  function plot(r) {
    var W = 560, H = 300, L = 70, B = 36, R = 12, pts = r.points || [];
    var mx = 0, my = 0, m = r.model || {};
    pts.forEach(function (p) { mx = Math.max(mx, TV.num(p[0])); my = Math.max(my, TV.num(p[1])); });
    mx = mx || 1;
    my = my || 1;
    var x = function (v) { return L + (W - L - R) * TV.num(v) / mx; };
    var y = function (v) { return H - B - (H - B - 10) * Math.max(0, Math.min(1.05, TV.num(v) / my)); };
    var s = '<svg class="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + W + ' ' + H +
      '" role="img" aria-label="cost by input size">';
    s += '<line class="ax" x1="' + L + '" y1="' + (H - B) + '" x2="' + (W - 5) + '" y2="' + (H - B) + '"/>';
    s += '<line class="ax" x1="' + L + '" y1="5" x2="' + L + '" y2="' + (H - B) + '"/>';
    s += '<text x="' + ((W + L) / 2) + '" y="' + (H - 6) + '" text-anchor="middle">input size n (max ' +
      TV.esc(TV.fmt(mx)) + ')</text>';
    s += '<text x="6" y="14">cost (max ' + TV.esc(TV.short(my)) + ')</text>';
    if (r['class'] && m.b !== undefined && m.c !== undefined) {
      var d = '';
      for (var i = 0; i <= 60; i++) {
        var n = mx * i / 60;
        d += (i ? 'L' : 'M') + x(n).toFixed(1) + ',' + y(m.a + m.b * Math.pow(n, m.c)).toFixed(1);
      }
      s += '<path class="fit" d="' + d + '"/>';
    }
    pts.forEach(function (p) {
      var tip = 'n ' + TV.fmt(p[0]) + ': average ' + TV.fmt(p[2]) + ', worst ' + TV.fmt(p[1]) +
        ', best ' + TV.fmt(p[3]) + ' (' + TV.fmt(p[4]) + ' calls)';
      if (TV.num(p[1]) !== TV.num(p[3])) {
        s += '<line class="ax" x1="' + x(p[0]).toFixed(1) + '" x2="' + x(p[0]).toFixed(1) + '" y1="' +
          y(p[1]).toFixed(1) + '" y2="' + y(p[3]).toFixed(1) + '"/>';
      }
      s += '<circle class="pt" r="3" cx="' + x(p[0]).toFixed(1) + '" cy="' + y(p[2]).toFixed(1) +
        '"><title>' + TV.esc(tip) + '</title></circle>';
    });
    return s + '</svg>';
  }
  function complexityText(r) {
    var m = r.model || {}, t;
    if (r['class']) {
      t = 'cost grows as <b class="cx-class">' + TV.esc(r['class']) + '</b>';
      if (m.c !== undefined) {
        t += ' (fit a + b·n<sup>c</sup>: b ' + TV.esc(Number(m.b).toPrecision(4)) + ', c ' +
          TV.esc(Number(m.c).toFixed(3)) + (m.r2 !== null && m.r2 !== undefined ? ', R² ' +
          TV.esc(Number(m.r2).toFixed(4)) : '') + ')';
      }
    } else {
      t = 'no class of growth' + (r.why ? ': ' + TV.esc(r.why) : '');
    }
    return '<p class="msg"><b>' + TV.esc(r.name || '') + '</b> ' + t + '<br><span class="muted">' +
      TV.esc((r.cost || '') + ' cost · ' + TV.fmt(r.calls) + ' calls' + (r.share !== undefined ?
      ' · ' + Number(r.share).toFixed(2) + '% of the report\'s cost' : '') +
      (r.image ? ' · ' + r.image : '')) + '</span></p>';
  }
  TV.panes.complexity = {
    needsFn: true,
    key: function (s) { return String(s.fn); },
    load: function (s, failed) {
      var body = TV.$('c-body');
      TV.api('complexity', { id: s.fn }).then(function (r) {
        if (TV.state.fn !== s.fn) return;
        body.innerHTML = complexityText(r) + plot(r);
      }).catch(function (err) {
        if (err.status === 404) {
          body.textContent = '';
          body.appendChild(TV.el('p', { class: 'msg muted' },
                                 'No complexity data for this function (' + err.message + ').'));
        } else {
          TV.fail(body, err);
        }
        failed();
      });
    }
  };
})();
