/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tally view: the page's core (embedded into src/view/view_assets.h with view_table.js,
 * view_panes.js and view_flame.js, in that order, as one script). The API it speaks is
 * docs/internals (notes/view-api.md): every request carries the token `t` of the page's own
 * address. TV is the one global: the state (also kept in the address's #fragment), the API
 * client, number and name formatting, and the selection that every view follows.
 */
var TV = (function () {
  'use strict';
  var TV = {};
  var T = new URLSearchParams(location.search).get('t') || '';
  var hooks = {};
  TV.meta = null;
  /* the state the address keeps (#fn=..&ev=..): see hashOf/readHash */
  TV.state = { fn: null, ev: 0, tab: 'graph', map: 'callee', sort: 'incl', dir: 'desc', q: '', parts: null,
               up: 2, down: 2, fq: '', ff: null };

  TV.$ = function (id) { return document.getElementById(id); };
  /* an element: TV.el('td', {class: 'n', title: 'x'}, 'text' or [children]) */
  TV.el = function (tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
      });
    }
    if (kids !== undefined && kids !== null) {
      (Array.isArray(kids) ? kids : [kids]).forEach(function (k) {
        if (k === null || k === undefined) return;
        e.appendChild(typeof k === 'object' ? k : document.createTextNode(String(k)));
      });
    }
    return e;
  };
  /* a name's hash (a positive 31-bit number), for colours that stay with a name */
  TV.hash = function (name) {
    var h = 0;
    for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) | 0;
    return Math.abs(h);
  };
  TV.esc = function (s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  };
  TV.on = function (name, fn) { (hooks[name] = hooks[name] || []).push(fn); };
  TV.emit = function (name, arg) { (hooks[name] || []).forEach(function (fn) { fn(arg); }); };

  /* ---- the server ---- */
  TV.url = function (path, params) {
    var u = 'api/' + path + '?t=' + encodeURIComponent(T);
    Object.keys(params || {}).forEach(function (k) {
      var v = params[k];
      if (v === null || v === undefined || v === '') return;
      u += '&' + k + '=' + encodeURIComponent(v);
    });
    if (TV.state.parts) u += '&parts=' + TV.state.parts.join(',');
    return u;
  };
  /* ---- a page without a server (tally report): the answers are embedded ---- */
  var SNAP = null, snapReady = null;
  (function () {
    var el = document.getElementById('tally-snapshot');
    if (!el) return;
    if (el.getAttribute('data-encoding') !== 'gzip-base64') {
      SNAP = JSON.parse(el.textContent);
      snapReady = Promise.resolve(SNAP);
      return;
    }
    /* tally report writes it gzip-compressed, in base64: unpacked by the browser */
    if (typeof DecompressionStream === 'undefined') {
      snapReady = Promise.reject(new Error('this browser cannot unpack the report\'s data (no ' +
        'DecompressionStream: Chromium 80, Firefox 113, Safari 16.4 or newer can)'));
      return;
    }
    var bin = atob(el.textContent.replace(/\s+/g, '')), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var text = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    snapReady = new Response(text).text().then(function (t) {
      SNAP = JSON.parse(t);
      el.textContent = ''; /* the packed copy is not needed any more */
      return SNAP;
    });
  })();
  /* the key of a question in the snapshot: path, then the arguments sorted by name */
  function snapKey(path, params) {
    var ks = Object.keys(params || {}).filter(function (k) {
      var v = params[k];
      return v !== null && v !== undefined && v !== '';
    }).sort();
    return path + (ks.length ? '?' + ks.map(function (k) { return k + '=' + params[k]; }).join('&') : '');
  }
  /* the function table of the shipped rows, sorted and searched here as the server would */
  function snapFunctions(params) {
    var all = SNAP.answers.functions.rows, ev = +(params.ev || 0);
    var sort = params.sort || 'incl', desc = params.dir ? params.dir === 'desc' : /^(incl|self|calls|change)$/.test(sort);
    var rows = all;
    if (params.q) {
      var q = String(params.q), flags = '';
      if (q.indexOf('(?i)') === 0) { q = q.slice(4); flags = 'i'; }
      var re;
      try { re = new RegExp(q, flags); } catch (e) {
        var err = new Error('bad regex: ' + e.message + ' (HTTP 400)');
        err.status = 400;
        return Promise.reject(err);
      }
      rows = rows.filter(function (r) { return re.test(r.name); });
    }
    var key = {
      incl: function (r) { return TV.num(r.incl[ev]); }, self: function (r) { return TV.num(r.self[ev]); },
      calls: function (r) { return r.calls; },
      change: function (r) { return TV.num(r.incl[ev]) - TV.num(r.base_incl ? r.base_incl[ev] : 0); }
    }[sort];
    var str = { name: 'name', obj: 'obj', file: 'file' }[sort];
    rows = rows.slice().sort(function (a, b) {
      var d = key ? key(a) - key(b) : (a[str] < b[str] ? -1 : a[str] > b[str] ? 1 : 0);
      if (desc) d = -d;
      if (!d) d = a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
      return d || a.id - b.id;
    });
    var off = +(params.offset || 0), lim = +(params.limit || 200);
    var ms = SNAP.answers.meta.events.map(function (e, k) {
      return rows.reduce(function (s, r) { return s + TV.num(r.self[k]); }, 0);
    });
    return Promise.resolve({ total: rows.length, all: SNAP.answers.meta.nfunctions, offset: off,
                             match_self: ms, rows: rows.slice(off, off + lim) });
  }
  function snapAnswer(path, params, asText) {
    if (path === 'functions') return snapFunctions(params || {});
    var k = snapKey(path, params);
    var a = asText ? SNAP.svg[k] : SNAP.answers[k];
    if (a === undefined) {
      var err = new Error('not in this report: ' + SNAP.note + ' (HTTP 404)');
      err.status = 404;
      return Promise.reject(err);
    }
    return Promise.resolve(a);
  }

  /* fetch api/PATH: resolves with the JSON (or text when asText), rejects with an Error whose
     message is the server's {"error"} text, or says the server could not be reached */
  TV.api = function (path, params, asText) {
    if (snapReady) return snapReady.then(function () { return snapAnswer(path, params, asText); });
    return fetch(TV.url(path, params), { cache: 'no-store' }).then(function (r) {
      if (r.ok) return asText ? r.text() : r.json();
      return r.text().then(function (body) {
        var msg = '';
        try { msg = JSON.parse(body).error; } catch (e) { msg = ''; }
        var err = new Error((msg || body.slice(0, 300) || r.statusText) + ' (HTTP ' + r.status + ')');
        err.status = r.status;
        throw err;
      });
    }, function () {
      var err = new Error('the tally view server did not answer (was it stopped?)');
      err.status = 0;
      throw err;
    });
  };
  /* an error inside the element that asked (replaces its content) */
  TV.fail = function (where, err) {
    where.textContent = '';
    where.appendChild(TV.el('div', { class: 'err', role: 'alert' }, err.message || String(err)));
    if (err.status === 0) TV.banner(err.message);
    if (err.status === 403) TV.banner(err.message + ': open the address the server printed (its token changes ' +
                                      'with every start)');
  };
  TV.banner = function (msg) {
    var b = TV.$('v-banner');
    b.textContent = msg || '';
    b.hidden = !msg;
  };

  /* ---- numbers: a cost is a JSON number, or a string of digits past 2^53 ---- */
  TV.num = function (x) { return x === null || x === undefined ? 0 : Number(x); };
  /* exact, with thousands separators (a string keeps every digit) */
  TV.fmt = function (x) {
    if (x === null || x === undefined) return '';
    var s = String(x), neg = s.charAt(0) === '-';
    if (neg) s = s.slice(1);
    if (!/^\d+$/.test(s)) return String(x);
    var out = '';
    while (s.length > 3) {
      out = ',' + s.slice(-3) + out;
      s = s.slice(0, -3);
    }
    return (neg ? '-' : '') + s + out;
  };
  /* short: three significant digits and k, M, G, T, P, E */
  TV.short = function (x) {
    var v = TV.num(x), a = Math.abs(v);
    if (a < 10000) return TV.fmt(typeof x === 'string' ? x : Math.round(v));
    var units = ['k', 'M', 'G', 'T', 'P', 'E'], u = -1;
    while (a >= 999.5 && u < units.length - 1) { a /= 1000; u++; }
    var s = a >= 99.95 ? a.toFixed(0) : a >= 9.995 ? a.toFixed(1) : a.toFixed(2);
    return (v < 0 ? '-' : '') + s + units[u];
  };
  /* the total of event e over the parts chosen */
  TV.total = function (e) {
    var m = TV.meta;
    if (!m) return 0;
    if (!TV.state.parts) return TV.num(m.totals[e]);
    var t = 0;
    m.parts.forEach(function (p) {
      if (TV.state.parts.indexOf(p.index) >= 0) t += TV.num(p.totals[e]);
    });
    return t;
  };
  /* a comparison: the base's total of event e (null when the base lacks it) */
  TV.baseTotal = function (e) {
    var b = TV.meta && TV.meta.base;
    if (!b || !b.totals) return null;
    var t = b.totals[e === undefined ? TV.state.ev : e];
    return t === null || t === undefined ? null : TV.num(t);
  };
  /* the change now - was: signed short value, and its share of the base's total */
  TV.delta = function (now, was, e) {
    var d = TV.num(now) - TV.num(was), bt = TV.baseTotal(e);
    var p = bt ? (100 * d) / bt : 0;
    return { d: d, text: (d > 0 ? '+' : '') + TV.short(d),
             pct: bt ? (p > 0 ? '+' : '') + (Math.abs(p) < 0.01 && p !== 0 ? (p > 0 ? '<0.01' : '>-0.01') :
                                             p.toFixed(2)) + '%' : '',
             cls: d > 0 ? 'up' : d < 0 ? 'down' : '' };
  };
  TV.share = function (x, e) {
    var t = TV.total(e === undefined ? TV.state.ev : e);
    return t ? (100 * TV.num(x)) / t : 0;
  };
  TV.pct = function (x, e) {
    var p = TV.share(x, e), a = Math.abs(p);
    if (a > 0 && a < 0.01) return (p < 0 ? '>-' : '<') + '0.01%';
    return (a >= 99.995 || a === 0 ? p.toFixed(0) : p.toFixed(2)) + '%';
  };
  TV.ev = function () { return TV.state.ev; };
  TV.evName = function (e) {
    var ev = TV.meta && TV.meta.events[e === undefined ? TV.state.ev : e];
    return ev ? ev.name : '';
  };

  /* ---- names ---- */
  TV.base = function (p) {
    if (!p) return '';
    var k = p.lastIndexOf('/');
    return k < 0 ? p : p.slice(k + 1);
  };
  var OPS = /^(\(\)|\[\]|->\*?|<=>|<<=|>>=|<<|>>|<=|>=|<|>)/;
  /* a name with C++ template arguments <…> and argument lists (…) folded; operators and
     "(anonymous namespace)" stay */
  TV.shortName = function (name) {
    /* only C++-looking names: a scope or an argument list (not a name with markup in it) */
    if (!name || name.length < 12 || !/[<(]/.test(name) || !/::|\(/.test(name)) return name || '';
    var out = '', depth = 0, i = 0, n = name.length, stack = [];
    while (i < n) {
      var c = name.charAt(i);
      if (depth === 0 && /operator\s*$/.test(out)) {
        var m = OPS.exec(name.slice(i));
        if (m) { out += m[1]; i += m[1].length; continue; }
      }
      if (depth === 0 && c === '(' && (out === '' || /[\s:]$/.test(out))) {
        var close = name.indexOf(')', i); /* "(below main)", "(anonymous namespace)": as they are */
        if (close > 0) {
          out += name.slice(i, close + 1);
          i = close + 1;
          continue;
        }
      }
      if (c === '<' || c === '(') {
        if (depth === 0) out += c;
        stack.push(c === '<' ? '>' : ')');
        depth++;
      } else if (depth > 0 && c === stack[stack.length - 1]) {
        stack.pop();
        depth--;
        if (depth === 0) out += (name.charAt(i - 1) === (c === '>' ? '<' : '(') ? '' : '\u2026') + c;
      } else if (depth === 0) {
        out += c;
      }
      i++;
    }
    if (depth > 0) return name; /* unbalanced: leave it as it is */
    return out;
  };
  /* the name of a function row: the short name, its cycle */
  TV.label = function (f) {
    var s = TV.shortName(f.name);
    if (f.cycle) s += ' <cycle ' + f.cycle + '>';
    return s;
  };

  /* ---- state and address ---- */
  var KEYS = ['fn', 'ev', 'tab', 'map', 'sort', 'dir', 'q', 'parts', 'up', 'down', 'fq', 'ff'];
  var TABS = ['graph', 'source', 'flame', 'icicle', 'sandwich', 'maps', 'complexity'];
  var SORTS = ['incl', 'self', 'calls', 'name', 'obj', 'file', 'change'];
  TV.hashOf = function (s) {
    var p = new URLSearchParams();
    KEYS.forEach(function (k) {
      var v = s[k];
      if (v === null || v === undefined || v === '') return;
      if (k === 'parts') v = v.join(',');
      p.set(k, String(v));
    });
    return '#' + p.toString();
  };
  function int(v, lo, hi, dflt) {
    var n = parseInt(v, 10);
    return isNaN(n) || n < lo || n > hi ? dflt : n;
  }
  TV.readHash = function () {
    var p = new URLSearchParams(location.hash.replace(/^#/, ''));
    var s = { fn: null, ev: 0, tab: 'graph', map: 'callee', sort: 'incl', dir: 'desc', q: '', parts: null,
              up: 2, down: 2, fq: '', ff: null };
    var ne = TV.meta ? TV.meta.events.length : 1;
    if (p.has('fn')) s.fn = int(p.get('fn'), 0, 1e15, null);
    /* a report opens on the event its pictures were made for */
    var ev0 = SNAP && TV.meta && TV.meta.snapshot ? TV.meta.snapshot.ev : 0;
    s.ev = int(p.get('ev'), 0, ne - 1, ev0);
    if (TABS.indexOf(p.get('tab')) >= 0) s.tab = p.get('tab');
    if (s.tab === 'complexity' && !(TV.meta && TV.meta.complexity)) s.tab = 'graph';
    if (p.get('map') === 'caller') s.map = 'caller';
    if (SORTS.indexOf(p.get('sort')) >= 0) s.sort = p.get('sort');
    if (s.sort === 'change' && !(TV.meta && TV.meta.base)) s.sort = 'incl';
    if (p.get('dir') === 'asc' || p.get('dir') === 'desc') s.dir = p.get('dir');
    s.q = p.get('q') || '';
    s.fq = p.get('fq') || '';
    if (p.has('ff')) s.ff = int(p.get('ff'), 0, 1e15, null); /* the flame graph's root function */
    s.up = int(p.get('up'), 0, 6, 2);
    s.down = int(p.get('down'), 0, 6, 2);
    if (p.get('parts') && TV.meta) {
      var known = TV.meta.parts.map(function (x) { return x.index; });
      var ps = p.get('parts').split(',').map(Number).filter(function (x) {
        return known.indexOf(x) >= 0;
      });
      if (ps.length && ps.length < known.length) s.parts = ps;
    }
    return s;
  };
  /* change the state: patch's keys; mode 'push' (a new history entry), 'replace', or 'none';
     every hook 'state' then gets {old, now} */
  TV.set = function (patch, mode) {
    var old = Object.assign({}, TV.state);
    Object.assign(TV.state, patch);
    var h = TV.hashOf(TV.state);
    var url = location.pathname + location.search + h;
    if (mode === 'push' && h !== location.hash) history.pushState(null, '', url);
    else if (mode !== 'none') history.replaceState(null, '', url);
    TV.emit('state', { old: old, now: TV.state });
  };
  /* select function id in every view */
  TV.select = function (id, mode) {
    if (id === null || id === undefined || isNaN(id)) return;
    TV.set({ fn: Number(id) }, mode || 'push');
  };
  window.addEventListener('popstate', function () {
    var old = Object.assign({}, TV.state);
    TV.state = TV.readHash();
    if (TV.state.fn === null) TV.state.fn = old.fn;
    TV.emit('state', { old: old, now: TV.state, pop: true });
  });

  /* ---- start: meta, then every view ---- */
  function header(m) {
    var title = m.title || ('tally view: ' + (m.cmd || m.inputs.join(' ')));
    document.title = title;
    TV.$('v-title').textContent = m.cmd || m.inputs.join(' ') || 'tally view';
    TV.$('v-title').title = title + (m.creator ? '\ncreator: ' + m.creator : '') +
      '\ninputs: ' + m.inputs.join(', ') + (m.base ? '\nbase: ' + m.base.inputs.join(', ') : '');
    var sel = TV.$('v-event');
    m.events.forEach(function (e, k) {
      sel.appendChild(TV.el('option', { value: k, title: e.long || e.name }, e.name));
    });
    sel.addEventListener('change', function () {
      TV.set({ ev: Number(sel.value) }, 'push');
    });
    var info = TV.fmt(m.nfunctions) + ' functions · stacks ' + m.stacks;
    if (m.base) {
      info += ' · compared with ' + m.base.inputs.join(', ');
      document.body.classList.add('cmp');
    }
    TV.$('v-info').textContent = info;
    if (SNAP) { /* a report: what it holds, and the parts summed in it (no other choice) */
      var n = TV.$('v-snapnote');
      n.hidden = false;
      n.textContent = 'Report: ' + SNAP.note + (m.parts.length > 1 ? ' (' + m.snapshot.parts + ')' : '');
    } else if (m.parts.length > 1) {
      TV.$('v-parts').hidden = false;
      var list = TV.$('v-parts-list');
      m.parts.forEach(function (p) {
        var cb = TV.el('input', { type: 'checkbox', value: p.index });
        list.appendChild(TV.el('label', null, [cb, ' ' + p.label]));
      });
      list.addEventListener('change', function () {
        var on = Array.prototype.filter.call(list.querySelectorAll('input'), function (c) {
          return c.checked;
        }).map(function (c) { return Number(c.value); });
        if (!on.length) { /* at least one part */
          controls();
          return;
        }
        TV.set({ parts: on.length === m.parts.length ? null : on }, 'push');
      });
    }
    document.addEventListener('click', function (ev) { /* the parts' list closes when left */
      var d = TV.$('v-parts');
      if (d.open && !d.contains(ev.target)) d.open = false;
    });
    if (m.complexity) document.querySelector('#v-tabs [data-tab=complexity]').hidden = false;
  }
  /* the header's controls show the state */
  function controls() {
    var s = TV.state;
    TV.$('v-event').value = String(s.ev);
    var q = TV.$('v-search');
    if (q.value !== s.q && document.activeElement !== q) q.value = s.q;
    var boxes = TV.$('v-parts-list').querySelectorAll('input');
    Array.prototype.forEach.call(boxes, function (c) {
      c.checked = !s.parts || s.parts.indexOf(Number(c.value)) >= 0;
    });
    TV.$('v-parts-sum').textContent = 'Parts' + (s.parts ? ' (' + s.parts.length + ' of ' +
      boxes.length + ')' : ' (all)');
  }
  TV.on('state', controls);

  function start() {
    var icon = document.createElement('link');
    icon.rel = 'icon';
    icon.href = 'data:,';
    document.head.appendChild(icon);
    TV.api('meta').then(function (m) {
      TV.meta = m;
      header(m);
      TV.state = TV.readHash();
      history.replaceState(null, '', location.pathname + location.search + TV.hashOf(TV.state));
      controls();
      TV.emit('start', TV.state);
    }).catch(function (err) {
      TV.banner('cannot load the profile\'s description: ' + err.message);
      TV.$('v-fn').textContent = '';
    });
  }
  document.addEventListener('DOMContentLoaded', start);
  return TV;
})();
