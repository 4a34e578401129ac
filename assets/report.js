/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tally report: the page's behaviour (embedded into index.html). Reads the
 * JSON in #tally-data (see docs/internals/html.md) and fills the header,
 * the function table (sort, search), the caller/callee panel and the
 * annotated source of the selected function; links the call graph's
 * nodes (dot's id "f<function id>", renamed "graph-f<id>" here so that the
 * permalink #f<id> is the function's panel, not the node) and the flame
 * graph's frames (by name) to the selection; zooms and pans the call graph.
 */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('tally-data').textContent);
  var NE = D.events.length;
  var ROWS = 200; /* rows drawn before "Show all rows" */
  var state = { ev: 0, sortKind: 'i', sortEv: 0, desc: true, filter: null, all: false, sel: -1 };
  var byId = {};
  var callers = [], callees = [];
  D.funcs.forEach(function (f, i) {
    byId[f.id] = i;
    callers.push([]);
    callees.push([]);
  });
  D.arcs.forEach(function (a, k) {
    callees[a[0]].push(k);
    callers[a[1]].push(k);
  });

  function $(id) { return document.getElementById(id); }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function fmt(n) {
    var s = String(Math.abs(n)), out = '';
    while (s.length > 3) {
      out = ',' + s.slice(-3) + out;
      s = s.slice(0, -3);
    }
    return (n < 0 ? '-' : '') + s + out;
  }
  function share(v, e) {
    var t = D.totals[e];
    return t ? (100 * v) / t : 0;
  }
  function pct(v, e) { return share(v, e).toFixed(2) + '%'; }
  function base(p) { var k = p.lastIndexOf('/'); return k < 0 ? p : p.slice(k + 1); }
  function fname(i) {
    var f = D.funcs[i];
    return f.n + (f.y ? ' <cycle ' + f.y + '>' + (f.e ? ' (estimated)' : '') : '');
  }

  /* ---- header ---- */
  $('t-title').textContent = D.cmd ? D.cmd : (D.inputs.join(' ') || 'tally report');
  $('t-meta').textContent =
    (D.inputs.length ? 'profile: ' + D.inputs.join(', ') + ' \u00b7 ' : '') +
    (D.creator ? 'creator: ' + D.creator + ' \u00b7 ' : '') +
    D.funcs.length + ' of ' + D.nfunctions + ' functions shown (largest inclusive cost first), ' +
    D.arcs.length + ' of ' + D.narcs + ' call arcs';
  $('t-totals').innerHTML = D.events.map(function (e, k) {
    var ln = D.long[k] ? ' title="' + esc(D.long[k]) + '"' : '';
    return '<span' + ln + '><b>' + esc(e) + '</b> ' + fmt(D.totals[k]) + '</span>';
  }).join('');
  $('t-event').innerHTML = D.events.map(function (e, k) {
    return '<option value="' + k + '">' + esc(e) + '</option>';
  }).join('');

  /* ---- the function table ---- */
  function header() {
    var h = '<tr><th class="name" data-k="n">Function</th><th class="name" data-k="f">File</th>';
    for (var e = 0; e < NE; e++) {
      h += '<th data-k="s" data-e="' + e + '">Self ' + esc(D.events[e]) + '</th>' +
           '<th data-k="i" data-e="' + e + '">Incl ' + esc(D.events[e]) + '</th>';
    }
    h += '<th data-k="c">Calls</th></tr>';
    var thead = document.querySelector('#t-functions thead');
    thead.innerHTML = h;
    Array.prototype.forEach.call(thead.querySelectorAll('th'), function (th) {
      var k = th.getAttribute('data-k'), e = +(th.getAttribute('data-e') || 0);
      if (k === state.sortKind && (k !== 's' && k !== 'i' || e === state.sortEv)) {
        th.className += ' sorted' + (state.desc ? '' : ' asc');
      }
      th.addEventListener('click', function () {
        if (state.sortKind === k && state.sortEv === e) state.desc = !state.desc;
        else {
          state.sortKind = k;
          state.sortEv = e;
          state.desc = k !== 'n' && k !== 'f';
        }
        header();
        rows();
      });
    });
  }
  function sortKey(i) {
    var f = D.funcs[i];
    switch (state.sortKind) {
      case 'n': return f.n.toLowerCase();
      case 'f': return f.f.toLowerCase();
      case 's': return f.s[state.sortEv];
      case 'c': return f.c + f.rc;
      default: return f.i[state.sortEv];
    }
  }
  function matches(f) {
    if (!state.filter) return true;
    return state.filter.test(f.n) || state.filter.test(f.f);
  }
  function cell(v, e) {
    return '<td>' + fmt(v) + '<span class="pct">' + pct(v, e) + '</span></td>';
  }
  function rows() {
    var idx = [];
    for (var i = 0; i < D.funcs.length; i++) if (matches(D.funcs[i])) idx.push(i);
    idx.sort(function (a, b) {
      var x = sortKey(a), y = sortKey(b);
      var c = x < y ? -1 : x > y ? 1 : a - b;
      if (x === y) return a - b;
      return state.desc ? -c : c;
    });
    var n = state.all ? idx.length : Math.min(idx.length, ROWS);
    var h = [];
    for (var k = 0; k < n; k++) {
      var f = D.funcs[idx[k]];
      var r = '<tr data-i="' + idx[k] + '"' + (idx[k] === state.sel ? ' class="selected"' : '') +
              '><td class="name" title="' + esc(f.n) + '">' + esc(fname(idx[k])) + '</td>' +
              '<td class="file" title="' + esc(f.f) + '">' + esc(base(f.f)) + '</td>';
      for (var e = 0; e < NE; e++) r += cell(f.s[e], e) + cell(f.i[e], e);
      r += '<td>' + fmt(f.c) + (f.rc ? '+' + fmt(f.rc) : '') + '</td></tr>';
      h.push(r);
    }
    document.querySelector('#t-functions tbody').innerHTML = h.join('');
    $('t-count').textContent = (state.filter ? idx.length + ' matching, ' : '') +
      n + ' of ' + D.funcs.length + ' rows';
    $('t-more').hidden = n >= idx.length;
  }
  document.querySelector('#t-functions tbody').addEventListener('click', function (ev) {
    var tr = ev.target.closest('tr');
    if (tr && tr.hasAttribute('data-i')) select(+tr.getAttribute('data-i'), true);
  });
  $('t-more').addEventListener('click', function () { state.all = true; rows(); });
  $('t-search').addEventListener('input', function () {
    var q = this.value;
    if (!q) state.filter = null;
    else {
      try {
        state.filter = new RegExp(q, 'i');
      } catch (e) {
        state.filter = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
      }
    }
    rows();
  });
  $('t-event').addEventListener('change', function () {
    state.ev = +this.value;
    state.sortEv = state.ev;
    if (state.sortKind !== 's') state.sortKind = 'i';
    header();
    rows();
    if (state.sel >= 0) details(state.sel);
  });

  /* ---- the selected function ---- */
  function callTable(list, other, title, hidden) {
    var e = state.ev;
    var items = list.slice().sort(function (a, b) { return D.arcs[b][4][e] - D.arcs[a][4][e]; });
    var h = '<h3>' + title + ' (' + list.length + ')</h3>';
    if (!items.length && !hidden) return h + '<p class="note">none</p>';
    h += '<table class="calls"><thead><tr><th class="name">Function</th><th>Calls</th>' +
         '<th>Incl ' + esc(D.events[e]) + '</th></tr></thead><tbody>';
    items.forEach(function (k) {
      var a = D.arcs[k], j = a[other];
      var w = Math.max(0, Math.min(60, share(a[4][e], e) * 0.6));
      h += '<tr><td class="name"><a data-i="' + j + '" title="' + esc(D.funcs[j].n) + '">' +
           esc(fname(j)) + '</a>' + (a[3] ? ' <span class="note">(recursive)</span>' : '') +
           '</td><td>' + fmt(a[2]) + '</td><td><span class="bar" style="width:' + w.toFixed(1) +
           'px"></span>' + fmt(a[4][e]) + '<span class="pct">' + pct(a[4][e], e) + '</span></td></tr>';
    });
    h += '</tbody></table>';
    if (hidden) {
      h += '<p class="note">' + hidden + ' more not shown (below the shipped functions)</p>';
    }
    return h;
  }
  function source(i) {
    var files = D.src[i];
    if (!files) return '<h3>Source</h3><p class="note">No source shown for this function ' +
      '(file not found, no line information, or not among the functions with source).</p>';
    var e = state.ev, h = '<h3>Source</h3>';
    files.forEach(function (s) {
      var self = 0;
      s.lines.forEach(function (l) { if (l[2]) self += l[2][e]; });
      h += '<div class="meta">' + esc(s.file) + '</div><div class="srcwrap"><table class="src"><tbody>';
      var prev = 0;
      s.lines.forEach(function (l) {
        if (prev && l[0] !== prev + 1) h += '<tr class="gap"><td></td><td></td><td>\u22ee</td></tr>';
        prev = l[0];
        var c = l[2] ? fmt(l[2][e]) + '<span class="pct">' + pct(l[2][e], e) + '</span>' : '';
        h += '<tr' + (l[2] && l[2][e] ? ' class="hot"' : '') + '><td class="ln">' + l[0] +
             '</td><td>' + c + '</td><td class="code">' + esc(l[1]) + '</td></tr>';
      });
      h += '</tbody></table></div>';
    });
    return h;
  }
  function details(i) {
    var f = D.funcs[i], e = state.ev;
    var h = '<h2 id="t-sel-name">' + esc(fname(i)) + '</h2><div class="meta">' +
            (f.f ? 'file: ' + esc(f.f) : '') + (f.o ? ' \u00b7 object: ' + esc(f.o) : '') +
            ' \u00b7 calls: ' + fmt(f.c) + (f.rc ? ' (+' + fmt(f.rc) + ' inside its recursion)' : '') +
            '</div><table class="calls"><thead><tr><th class="name">Event</th><th>Self</th>' +
            '<th>Inclusive</th></tr></thead><tbody>';
    for (var k = 0; k < NE; k++) {
      h += '<tr' + (k === e ? ' class="selected"' : '') + '><td class="name">' + esc(D.events[k]) +
           '</td>' + cell(f.s[k], k) + cell(f.i[k], k) + '</tr>';
    }
    h += '</tbody></table>';
    h += '<div id="t-callers">' + callTable(callers[i], 0, 'Callers', f.hi) + '</div>';
    h += '<div id="t-callees">' + callTable(callees[i], 1, 'Callees', f.ho) + '</div>';
    h += '<div id="t-source">' + source(i) + '</div>';
    $('t-details').innerHTML = h;
  }
  function select(i, push) {
    state.sel = i;
    details(i);
    Array.prototype.forEach.call(document.querySelectorAll('#t-functions tr.selected'), function (tr) {
      tr.className = '';
    });
    var tr = document.querySelector('#t-functions tr[data-i="' + i + '"]');
    if (tr) tr.className = 'selected';
    Array.prototype.forEach.call(document.querySelectorAll('#callgraph g.node'), function (g) {
      g.classList.toggle('selected', g.id === 'graph-f' + D.funcs[i].id);
    });
    if (push && location.hash !== '#f' + D.funcs[i].id) {
      try { history.pushState(null, '', '#f' + D.funcs[i].id); } catch (err) { /* file: URLs */ }
    }
  }
  $('t-details').addEventListener('click', function (ev) {
    var a = ev.target.closest('a[data-i]');
    if (a) select(+a.getAttribute('data-i'), true);
  });
  var graph = $('callgraph'), dragged = false;
  if (graph) {
    Array.prototype.forEach.call(graph.querySelectorAll('g.node'), function (g) {
      if (/^f\d+$/.test(g.id)) g.id = 'graph-' + g.id;
    });
    graph.addEventListener('click', function (ev) {
      var g = ev.target.closest('g.node');
      if (dragged || !g || !/^graph-f\d+$/.test(g.id)) return;
      var i = byId[+g.id.slice('graph-f'.length)];
      if (i !== undefined) select(i, true);
    });
  }
  /* the call graph's zoom: fit to the width, steps of 1.25, 1:1; drag pans */
  var graphSvg = graph && graph.querySelector('svg'), zoom = { w: 0, h: 0, s: 1 };
  function setScale(s) {
    zoom.s = Math.max(0.05, Math.min(8, s));
    graphSvg.style.width = (zoom.w * zoom.s).toFixed(1) + 'px';
    graphSvg.style.height = (zoom.h * zoom.s).toFixed(1) + 'px';
    $('graph-scale').textContent = Math.round(zoom.s * 100) + '%';
  }
  function fitWidth() {
    var avail = graph.clientWidth - 16;
    setScale(avail > 0 && zoom.w > avail ? avail / zoom.w : 1);
  }
  if (graphSvg && $('graph-zoom')) {
    /* the size dot gave, in CSS pixels (its width and height are in pt) */
    var px = function (v) { return /pt$/.test(v) ? parseFloat(v) * 4 / 3 : parseFloat(v); };
    zoom.w = px(graphSvg.getAttribute('width')) || graphSvg.getBBox().width;
    zoom.h = px(graphSvg.getAttribute('height')) || graphSvg.getBBox().height;
    $('graph-fit').addEventListener('click', fitWidth);
    $('graph-in').addEventListener('click', function () { setScale(zoom.s * 1.25); });
    $('graph-out').addEventListener('click', function () { setScale(zoom.s / 1.25); });
    $('graph-one').addEventListener('click', function () { setScale(1); });
    var start = null;
    graph.addEventListener('mousedown', function (ev) {
      if (ev.button !== 0) return;
      start = { x: ev.clientX, y: ev.clientY, l: graph.scrollLeft, t: graph.scrollTop };
      dragged = false;
    });
    window.addEventListener('mousemove', function (ev) {
      if (!start) return;
      var dx = ev.clientX - start.x, dy = ev.clientY - start.y;
      if (!dragged && Math.abs(dx) + Math.abs(dy) < 4) return;
      dragged = true;
      graph.classList.add('panning');
      graph.scrollLeft = start.l - dx;
      graph.scrollTop = start.t - dy;
      ev.preventDefault();
    });
    window.addEventListener('mouseup', function () {
      start = null;
      graph.classList.remove('panning');
      setTimeout(function () { dragged = false; }, 0);
    });
    fitWidth();
  }
  /* a click on a flame frame selects that function (the first of its name) */
  var byName = {};
  D.funcs.forEach(function (f, i) { if (!(f.n in byName)) byName[f.n] = i; });
  var fl = $('flame');
  if (fl) {
    fl.addEventListener('click', function (ev) {
      var g = ev.target.closest('g.frame');
      var i = g ? byName[g.getAttribute('data-name')] : undefined;
      if (i !== undefined) select(i, true);
    });
  }
  function fromHash() {
    var m = /^#f(\d+)$/.exec(location.hash);
    if (m && byId[+m[1]] !== undefined) {
      select(byId[+m[1]], false);
      var tr = document.querySelector('#t-functions tr.selected');
      if (tr) tr.scrollIntoView({ block: 'nearest' });
      $('t-details').scrollIntoView({ block: 'start' });
    }
  }
  window.addEventListener('popstate', fromHash);
  window.addEventListener('hashchange', fromHash);

  header();
  rows();
  fromHash();
  window.tallyReport = { data: D, select: select, state: state, zoom: zoom,
    setScale: graphSvg ? setScale : null };
})();
