/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tally view: the function table. Virtual scrolling: the scroller holds a spacer as tall as
 * every row (fixed row height) and draws only the rows in sight, fetched from api/functions by
 * pages of PAGE rows (at most two requests at a time, only for pages still in sight when their
 * turn comes) into a cache of CACHE pages. The server sorts and filters; the query's key
 * (event, sort, direction, search, parts) empties the cache when it changes.
 */
(function () {
  'use strict';
  var PAGE = 100, CACHE = 40, INFLIGHT = 2, EXTRA = 8;
  var scroller, rowsEl, spacer, msg;
  var rowH = 22;
  var key = '';          /* the query of the cached pages */
  var cache = new Map(); /* page index -> rows (Map keeps insertion order: LRU) */
  var asked = new Set(); /* pages being fetched for key */
  var total = -1;        /* rows of the query, -1 until the first page comes */
  var frame = 0, searchTimer = 0;
  var gen = 0;           /* bumps with every new query: late answers are dropped */

  function queryKey(s) {
    return [s.ev, s.sort, s.dir, s.q, s.parts ? s.parts.join(',') : ''].join('\u0001');
  }

  function fetchPage(p) {
    var s = TV.state, g = gen;
    asked.add(p);
    TV.api('functions', { ev: s.ev, sort: s.sort, dir: s.dir, q: s.q, offset: p * PAGE,
                          limit: PAGE }).then(function (r) {
      if (g !== gen) return;
      asked.delete(p);
      cache.set(p, r.rows);
      while (cache.size > CACHE) cache.delete(cache.keys().next().value);
      scroller.removeAttribute('aria-busy');
      if (total !== r.total) {
        total = r.total;
        spacer.style.height = total * rowH + 'px';
        matched(r);
      }
      msg.hidden = true;
      TV.$('v-search').classList.remove('bad');
      if (!TV.state.fn && TV.state.fn !== 0 && r.rows.length && p === 0) {
        /* the first row is selected so that the right half is never empty */
        TV.select(r.rows[0].id, 'replace');
      }
      schedule();
    }).catch(function (err) {
      if (g !== gen) return;
      asked.delete(p);
      scroller.removeAttribute('aria-busy');
      msg.hidden = false;
      TV.fail(msg, err);
      if (err.status === 400) TV.$('v-search').classList.add('bad');
      if (total < 0) {
        rowsEl.textContent = '';
        spacer.style.height = '0px';
      }
    });
  }

  /* the matched share of a search, beside the search box */
  function matched(r) {
    var el = TV.$('v-match');
    if (!TV.state.q) {
      el.textContent = '';
      return;
    }
    var t = TV.fmt(r.total) + ' of ' + TV.fmt(r.all) + ' functions';
    if (r.match_self) {
      t += ' · self ' + TV.pct(r.match_self[TV.state.ev]) + ' of ' + TV.evName();
    }
    if (r.match_incl) t += ' · incl ' + TV.pct(r.match_incl[TV.state.ev]);
    el.textContent = t;
    el.title = 'the functions that match the search, and the share of the total their costs make';
  }

  function schedule() {
    if (!frame) frame = requestAnimationFrame(draw);
  }

  function costCell(cls, v, est) {
    var s = TV.share(v), w = Math.max(0, Math.min(100, Math.abs(s)));
    var span = TV.el('span', { class: cls + ' cost', 'data-v': String(v),
                               title: TV.fmt(v) + ' ' + TV.evName() + ' (' + TV.pct(v) + ')' });
    span.appendChild(TV.el('span', { class: 'v' }, (est ? '~' : '') + TV.short(v)));
    span.appendChild(TV.el('span', { class: 'p' }, TV.pct(v)));
    var bar = TV.el('span', { class: 'bar' });
    bar.style.width = 'calc(' + w.toFixed(2) + '% - 6px)';
    span.appendChild(bar);
    return span;
  }

  function rowEl(f, i) {
    var e = TV.state.ev;
    var r = TV.el('div', { class: 'vrow fn' + (f.id === TV.state.fn ? ' sel' : ''),
                           'data-id': f.id, 'data-i': i, role: 'row' });
    r.appendChild(costCell('c-incl', f.incl[e], f.est));
    r.appendChild(costCell('c-self', f.self[e], false));
    if (TV.meta.base) {
      var dl = TV.delta(f.incl[e], f.base_incl ? f.base_incl[e] : 0);
      var dc = TV.el('span', { class: 'c-delta cost ' + dl.cls, 'data-v': String(dl.d),
                               title: 'inclusive ' + TV.fmt(f.incl[e]) + ', base ' +
                                 TV.fmt(f.base_incl ? f.base_incl[e] : 0) + ': ' + dl.text + ' (' + dl.pct +
                                 ' of the base\'s total)' });
      dc.appendChild(TV.el('span', { class: 'v' }, dl.text));
      dc.appendChild(TV.el('span', { class: 'p' }, dl.pct));
      r.appendChild(dc);
    }
    r.appendChild(TV.el('span', { class: 'c-calls num', 'data-v': f.calls }, TV.short(f.calls)));
    var name = TV.el('span', { class: 'c-name', title: f.name + (f.file ? '\n' + f.file : '') },
                     TV.shortName(f.name));
    if (f.cycle) name.appendChild(TV.el('span', { class: 'cyc' }, ' <cycle ' + f.cycle + '>'));
    r.appendChild(name);
    r.appendChild(TV.el('span', { class: 'c-obj', title: f.obj }, TV.base(f.obj)));
    return r;
  }

  function draw() {
    frame = 0;
    if (!TV.meta) return;
    var h = scroller.clientHeight, top = scroller.scrollTop;
    var first = Math.max(0, Math.floor(top / rowH) - EXTRA);
    var last = Math.floor((top + h) / rowH) + EXTRA;
    if (total >= 0) last = Math.min(last, total - 1);
    var want = [];
    for (var p = Math.floor(first / PAGE); p <= Math.floor(Math.max(first, last) / PAGE); p++) {
      if (cache.has(p)) {
        var rows = cache.get(p);
        cache.delete(p); /* recently used: to the end */
        cache.set(p, rows);
      } else if (total < 0 ? p === 0 : p * PAGE < total) {
        want.push(p);
      }
    }
    want.forEach(function (q) {
      if (!asked.has(q) && asked.size < INFLIGHT) fetchPage(q);
    });
    if (total < 0) return;
    var frag = document.createDocumentFragment();
    for (var i = first; i <= last; i++) {
      var page = cache.get(Math.floor(i / PAGE));
      var f = page && page[i % PAGE];
      if (f) {
        frag.appendChild(rowEl(f, i));
      } else {
        frag.appendChild(TV.el('div', { class: 'vrow wait', 'data-i': i },
                               [TV.el('span', null, '…')]));
      }
    }
    rowsEl.textContent = '';
    rowsEl.style.transform = 'translateY(' + first * rowH + 'px)';
    rowsEl.appendChild(frag);
    if (total === 0) {
      msg.hidden = false;
      msg.textContent = TV.state.q ? 'No function matches the search.' : 'The profile has no function.';
    }
  }

  /* a new query: drop the cache, back to the top */
  function reset(keepScroll) {
    gen++;
    key = queryKey(TV.state);
    cache.clear();
    asked.clear();
    total = -1;
    scroller.setAttribute('aria-busy', 'true'); /* the rows in sight are the old query's */
    if (!keepScroll) scroller.scrollTop = 0;
    var heads = document.querySelectorAll('#v-thead [data-sort]');
    Array.prototype.forEach.call(heads, function (h) {
      var on = h.getAttribute('data-sort') === TV.state.sort;
      h.classList.toggle('on', on);
      h.classList.toggle('asc', on && TV.state.dir === 'asc');
      h.setAttribute('aria-sort', on ? (TV.state.dir === 'asc' ? 'ascending' : 'descending') : 'none');
    });
    var ev = TV.evName();
    TV.$('v-thead').querySelector('.c-incl').textContent = 'Incl ' + ev;
    TV.$('v-thead').querySelector('.c-self').textContent = 'Self ' + ev;
    schedule();
  }

  /* the index of the selected row, when it is in the cache */
  function selIndex() {
    var found = -1;
    cache.forEach(function (rows, p) {
      rows.forEach(function (f, k) {
        if (f.id === TV.state.fn) found = p * PAGE + k;
      });
    });
    return found;
  }
  function rowAt(i) {
    var page = cache.get(Math.floor(i / PAGE));
    return page && page[i % PAGE];
  }
  function moveSel(d) {
    var i = selIndex();
    if (i < 0) return;
    var j = Math.max(0, Math.min(total - 1, i + d));
    var f = rowAt(j);
    if (!f) return;
    TV.select(f.id, 'push');
    var y = j * rowH;
    if (y < scroller.scrollTop) scroller.scrollTop = y;
    else if (y + rowH > scroller.scrollTop + scroller.clientHeight) {
      scroller.scrollTop = y + rowH - scroller.clientHeight;
    }
  }

  TV.on('start', function () {
    scroller = TV.$('v-scroll');
    rowsEl = TV.$('v-rows');
    spacer = TV.$('v-spacer');
    msg = TV.$('v-tmsg');
    rowH = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--rowh')) || 22;
    scroller.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    rowsEl.addEventListener('click', function (ev) {
      var r = ev.target.closest('.vrow.fn');
      if (!r) return;
      scroller.focus({ preventScroll: true }); /* the arrow keys move from here */
      TV.select(Number(r.getAttribute('data-id')), 'push');
    });
    scroller.addEventListener('keydown', function (ev) {
      var page = Math.max(1, Math.floor(scroller.clientHeight / rowH) - 1);
      var d = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page }[ev.key];
      if (d) {
        ev.preventDefault();
        moveSel(d);
      }
    });
    var heads = document.querySelectorAll('#v-thead [data-sort]');
    Array.prototype.forEach.call(heads, function (h) {
      function sort() {
        var k = h.getAttribute('data-sort'), s = TV.state;
        if (k === 'change' && !TV.meta.base) return;
        var dir = k === s.sort ? (s.dir === 'desc' ? 'asc' : 'desc') :
          (k === 'name' || k === 'obj' || k === 'file' ? 'asc' : 'desc');
        TV.set({ sort: k, dir: dir }, 'push');
      }
      h.addEventListener('click', sort);
      h.addEventListener('keydown', function (ev) {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          sort();
        }
      });
    });
    var q = TV.$('v-search');
    q.addEventListener('input', function () {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(function () {
        if (q.value !== TV.state.q) TV.set({ q: q.value }, 'replace');
      }, 250);
    });
    q.addEventListener('keydown', function (ev) {
      if (ev.key === 'Enter') {
        clearTimeout(searchTimer);
        if (q.value !== TV.state.q) TV.set({ q: q.value }, 'push');
      }
    });
    reset(false);
  });

  TV.on('state', function (c) {
    if (!scroller) return;
    if (queryKey(c.now) !== key) {
      reset(false);
      if (c.old.q !== c.now.q && !c.now.q) TV.$('v-match').textContent = '';
    } else if (c.old.fn !== c.now.fn) {
      Array.prototype.forEach.call(rowsEl.querySelectorAll('.vrow.fn'), function (r) {
        r.classList.toggle('sel', Number(r.getAttribute('data-id')) === c.now.fn);
      });
      /* selected elsewhere (graph, flame, lists): its row into sight when the cache knows it */
      var i = selIndex(), y = i * rowH;
      if (i >= 0 && (y < scroller.scrollTop || y + rowH > scroller.scrollTop + scroller.clientHeight)) {
        scroller.scrollTop = Math.max(0, y - scroller.clientHeight / 2);
      }
    }
  });
  /* for the tests: the rows in the cache */
  TV.table = { rows: function () { var out = []; cache.forEach(function (r, p) { out[p] = r; });
                                   return out; },
               total: function () { return total; } };
})();
