// The report's filters (status, warning code, search) and the cards' order (status, path, time,
// warnings, size change), kept in the URL hash, as in
// `report.html#status=warnings&code=no_tail&q=fox&sort=time`; and its animated previews.
(function () {
  'use strict';
  var cards = [].slice.call(document.querySelectorAll('section.file'));
  var select = document.getElementById('filter');
  var search = document.getElementById('q');
  var sorter = document.getElementById('sort');
  var S = { status: 'all', code: '', q: '', sort: 'status' };
  // The cards' order as written (by status, then path) and the other orders, each a comparison
  // of two cards; ties keep the written order.
  cards.forEach(function (c, i) { c._at = i; });
  var num = function (c, k) { return +c.dataset[k] || 0; };
  var ORDERS = {
    status: function (a, b) { return a._at - b._at; },
    path: function (a, b) { return a.dataset.path < b.dataset.path ? -1 : a.dataset.path > b.dataset.path ? 1 : a._at - b._at; },
    time: function (a, b) { return num(b, 'ms') - num(a, 'ms') || a._at - b._at; },
    warnings: function (a, b) { return num(b, 'warnings') - num(a, 'warnings') || a._at - b._at; },
    grown: function (a, b) { return num(b, 'grown') - num(a, 'grown') || a._at - b._at; }
  };
  var sorted = 'status', shownOrder = cards.slice();
  function sort() {
    var by = ORDERS[S.sort] ? S.sort : 'status';
    if (by === sorted || !cards.length) return;
    // The cards stand together: each goes, in the new order, before what follows the last.
    var last = shownOrder[shownOrder.length - 1];
    var parent = last.parentNode, after = last.nextSibling;
    shownOrder = cards.slice().sort(ORDERS[by]);
    shownOrder.forEach(function (c) { parent.insertBefore(c, after); });
    sorted = by;
  }

  function text(c) {
    if (c._text === undefined) {
      var parts = [];
      [].forEach.call(c.querySelectorAll('h2,.meta,.error,.warnings li'), function (e) {
        parts.push(e.textContent);
      });
      c._text = parts.join('\n').toLowerCase();
    }
    return c._text;
  }
  function readHash() {
    var h = new URLSearchParams(location.hash.replace(/^#/, ''));
    S = { status: h.get('status') || 'all', code: h.get('code') || '', q: h.get('q') || '',
      sort: h.get('sort') || 'status' };
  }
  function writeHash() {
    var h = new URLSearchParams();
    if (S.status !== 'all') h.set('status', S.status);
    if (S.code) h.set('code', S.code);
    if (S.q) h.set('q', S.q);
    if (S.sort !== 'status') h.set('sort', S.sort);
    var s = h.toString();
    try {
      history.replaceState(null, '', s ? '#' + s : location.pathname + location.search);
    } catch (e) { /* a browser that refuses: the filter still applies */ }
  }
  function apply() {
    if (select.value !== S.status) select.value = S.status;
    if (search.value !== S.q) search.value = S.q;
    if (sorter.value !== S.sort) sorter.value = S.sort;
    sort();
    var needle = S.q.toLowerCase();
    var shown = 0;
    cards.forEach(function (c) {
      var ok = (S.status === 'all' || c.dataset.status === S.status) &&
        (!S.code || (' ' + c.dataset.codes + ' ').indexOf(' ' + S.code + ' ') >= 0) &&
        (!needle || text(c).indexOf(needle) >= 0);
      c.hidden = !ok;
      if (ok) shown++;
    });
    [].forEach.call(document.querySelectorAll('#codes tr[data-code]'), function (r) {
      r.classList.toggle('active', r.dataset.code === S.code);
    });
    document.getElementById('shown').textContent = shown + ' of ' + cards.length + ' files shown';
    document.getElementById('clear').hidden = !(S.code || S.q || S.status !== 'all');
  }
  function set(p) {
    for (var k in p) S[k] = p[k];
    writeHash();
    apply();
  }
  select.addEventListener('change', function () { set({ status: select.value }); });
  search.addEventListener('input', function () { set({ q: search.value }); });
  sorter.addEventListener('change', function () { set({ sort: sorter.value }); });
  [].forEach.call(document.querySelectorAll('#codes tr[data-code]'), function (r) {
    r.addEventListener('click', function (e) {
      e.preventDefault();
      set({ code: S.code === r.dataset.code ? '' : r.dataset.code });
    });
  });
  document.getElementById('clear').addEventListener('click', function (e) {
    e.preventDefault();
    set({ status: 'all', code: '', q: '' });
  });
  window.addEventListener('hashchange', function () { readHash(); apply(); });
  readHash();
  apply();

  // Previews: each canvas holds two figures (data-p: fps, frames, and per figure its label,
  // bone sides, parents and base64 byte positions, across and up) and charts; drawn while on
  // screen, following the hips.
  var COLOURS = { l: '#1f6fd1', r: '#d1341f', c: '#333' };
  var SERIES = { lf: '#1f6fd1', rf: '#d1341f', lh: '#7b3fd1', rh: '#d18a1f' };
  var FIG = 160, CHART_X = 2 * FIG + 12;
  var active = [];

  function bytes(s) {
    var b = atob(s), a = new Uint8Array(b.length);
    for (var i = 0; i < b.length; i++) a[i] = b.charCodeAt(i);
    return a;
  }
  function decode(c) {
    var d = JSON.parse(c.dataset.p);
    d.c.forEach(function (ch) { ch.s.forEach(function (s) { s.a = bytes(s.v); }); });
    d.f.forEach(function (f) {
      var a = bytes(f.b);
      f.a = a;
      f.nb = f.p.length;
      var lo = 1e9, hi = -1e9, wide = 1;
      for (var k = 0; k < d.n && f.nb; k++) {
        var h = k * f.nb * 2;
        for (var j = 0; j < f.nb; j++) {
          var o = h + j * 2, y = a[o + 1], x = a[o] - a[h];
          lo = Math.min(lo, y); hi = Math.max(hi, y); wide = Math.max(wide, Math.abs(x));
        }
      }
      f.lo = lo;
      f.s = Math.min((FIG - 16) / (2 * wide), (c.height - 34) / Math.max(1, hi - lo));
      f.tick = Math.max(8, (hi - lo) / 3);
    });
    c._d = d;
  }
  function at(f, i, j, w, b) {
    var a = f.a, o = (i * f.nb + b) * 2, p = (j * f.nb + b) * 2;
    return [a[o] + (a[p] - a[o]) * w, a[o + 1] + (a[p + 1] - a[o + 1]) * w];
  }
  function draw(c, t) {
    if (!c._d) decode(c);
    var d = c._d, g = c.getContext('2d'), W = FIG, H = c.height;
    var u = d.n > 1 ? (t % ((d.n - 1) / d.fps)) * d.fps : 0;
    var i = Math.min(Math.floor(u), Math.max(0, d.n - 2)), j = Math.min(i + 1, d.n - 1), w = Math.min(1, u - i);
    g.clearRect(0, 0, c.width, H);
    d.f.forEach(function (f, k) {
      var x0 = k * W, floor = H - 16;
      g.fillStyle = '#555';
      g.font = '11px sans-serif';
      g.fillText(f.l, x0 + 4, 12);
      if (!f.nb) return;
      var hip = at(f, i, j, w, 0);
      var P = function (p) { return [x0 + W / 2 + (p[0] - hip[0]) * f.s, floor - (p[1] - f.lo) * f.s]; };
      // The ground, its marks sliding as the hips travel.
      g.strokeStyle = '#bbb';
      g.lineWidth = 1;
      g.beginPath();
      g.moveTo(x0 + 4, floor); g.lineTo(x0 + W - 4, floor);
      var shift = (hip[0] % f.tick + f.tick) % f.tick;
      for (var m = -shift; m < W / f.s; m += f.tick) {
        var mx = x0 + 4 + m * f.s;
        if (mx >= x0 + 4) { g.moveTo(mx, floor); g.lineTo(mx - 4, floor + 5); }
      }
      g.stroke();
      g.lineWidth = 2.5;
      g.lineCap = 'round';
      for (var b = 0; b < f.nb; b++) {
        var q = f.p[b];
        if (q < 0) continue;
        var A = P(at(f, i, j, w, q)), B = P(at(f, i, j, w, b));
        g.strokeStyle = COLOURS[f.k[b]] || '#333';
        g.beginPath(); g.moveTo(A[0], A[1]); g.lineTo(B[0], B[1]); g.stroke();
      }
      if (f.h >= 0) {
        var head = P(at(f, i, j, w, f.h));
        g.fillStyle = '#333';
        g.beginPath(); g.arc(head[0], head[1], 4, 0, 7); g.fill();
      }
    });
    charts(g, d, d.n > 1 ? (i + w) / (d.n - 1) : 0, c.width, H);
  }
  // The charts beside the figures, one above the other, with the time cursor at `x` (0..1).
  function charts(g, d, x, width, height) {
    var hc = height / Math.max(1, d.c.length), pw = width - CHART_X - 4;
    g.setLineDash([]);
    d.c.forEach(function (ch, r) {
      var top = r * hc + 13, bottom = (r + 1) * hc - 4;
      g.fillStyle = '#444';
      g.font = '10px sans-serif';
      g.fillText(ch.t + ' (max ' + ch.m + ' ' + ch.u + ')', CHART_X, r * hc + 10);
      g.strokeStyle = '#ddd';
      g.lineWidth = 1;
      g.strokeRect(CHART_X, top, pw, bottom - top);
      g.lineWidth = 1.3;
      ch.s.forEach(function (s) {
        g.strokeStyle = SERIES[s.k] || '#333';
        g.setLineDash(s.d ? [3, 2] : []);
        g.beginPath();
        for (var k = 0; k < s.a.length; k++) {
          var px = CHART_X + (s.a.length > 1 ? k / (s.a.length - 1) : 0) * pw;
          var py = bottom - s.a[k] / 255 * (bottom - top);
          if (k) g.lineTo(px, py); else g.moveTo(px, py);
        }
        g.stroke();
      });
      g.setLineDash([]);
      g.strokeStyle = '#888';
      g.beginPath();
      g.moveTo(CHART_X + x * pw, top); g.lineTo(CHART_X + x * pw, bottom);
      g.stroke();
    });
  }
  function now() { return performance.now() / 1000; }
  var canvases = [].slice.call(document.querySelectorAll('canvas.anim'));
  if ('IntersectionObserver' in window) {
    var io = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        var k = active.indexOf(e.target);
        if (e.isIntersecting && k < 0) { active.push(e.target); draw(e.target, now()); }
        if (!e.isIntersecting && k >= 0) active.splice(k, 1);
      });
    });
    canvases.forEach(function (c) { io.observe(c); });
  } else {
    active = canvases;
  }
  setInterval(function () {
    var t = now();
    active.forEach(function (c) { draw(c, t); });
  }, 40);
  document.documentElement.setAttribute('data-ready-ms', String(Math.round(performance.now())));
  document.documentElement.setAttribute('data-ready', '1');
})();
