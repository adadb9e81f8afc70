// The only script of report.html and of the one-shot's index.html. The page is complete without it
// (the charts are inline SVG); it adds what the browser drew, for the test suite to read from the
// rendered page, and a readout of the values under the pointer.
(function () {
  'use strict';
  var plots = document.querySelectorAll('svg.plot');
  var lines = document.querySelectorAll('svg.plot path.line');
  var drawn = 0, shown = 0, i;
  for (i = 0; i < lines.length; i++) {
    var len = lines[i].getTotalLength();
    lines[i].setAttribute('data-rendered-length', len.toFixed(1));
    if (len > 0) drawn++;
  }
  for (i = 0; i < plots.length; i++) {
    var box = plots[i].getBoundingClientRect();
    plots[i].setAttribute('data-rendered-width', String(Math.round(box.width)));
    if (box.width > 0 && box.height > 0) shown++;
  }
  document.body.setAttribute('data-rendered-lines', String(drawn));
  document.body.setAttribute('data-rendered-plots', String(shown));

  var tip = document.createElement('div');
  tip.className = 'readout';
  document.body.appendChild(tip);

  function nums(s) { return s ? s.split(',').map(Number) : []; }
  function fmt(v) {
    var a = Math.abs(v);
    if (!isFinite(v)) return '–';
    if (a >= 1000) return Math.round(v).toLocaleString('en-US');
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    if (a >= 1) return v.toFixed(2);
    return v.toPrecision(3);
  }
  function xlabel(kind, x) {
    if (kind === 'nines') {
      var digits = Math.max(0, Math.ceil(x) - 2);
      return 'p' + (100 * (1 - Math.pow(10, -x))).toFixed(digits);
    }
    if (kind === 'rate') return fmt(x) + ' tx/s';
    return x.toFixed(1) + ' s';
  }
  function nearest(xs, x) {
    var lo = 0, hi = xs.length - 1;
    if (hi < 0) return -1;
    while (hi - lo > 1) {
      var mid = (lo + hi) >> 1;
      if (xs[mid] < x) lo = mid; else hi = mid;
    }
    return Math.abs(xs[lo] - x) <= Math.abs(xs[hi] - x) ? lo : hi;
  }
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; }); }

  Array.prototype.forEach.call(plots, function (svg) {
    var px = nums(svg.getAttribute('data-px')), dx = nums(svg.getAttribute('data-dx'));
    var kind = svg.getAttribute('data-xkind'), unit = svg.getAttribute('data-unit') || '';
    if (px.length !== 2 || dx.length !== 2) return;
    var series = Array.prototype.map.call(svg.querySelectorAll('path.line'), function (p) {
      var t = p.querySelector('title');
      return { label: t ? t.textContent : '', color: p.style.stroke, x: nums(p.getAttribute('data-x')), y: nums(p.getAttribute('data-y')) };
    });
    if (!series.length) return;
    var cursor = document.createElementNS('http://www.w3.org/2000/svg', 'line');
    cursor.setAttribute('class', 'cursor');
    var py = nums(svg.getAttribute('data-py'));
    cursor.setAttribute('y1', py[0]);
    cursor.setAttribute('y2', py[1]);
    cursor.style.display = 'none';
    svg.appendChild(cursor);
    function hide() { tip.style.display = 'none'; cursor.style.display = 'none'; }
    svg.addEventListener('mouseleave', hide);
    svg.addEventListener('mousemove', function (ev) {
      var m = svg.getScreenCTM();
      if (!m) return;
      var p = svg.createSVGPoint();
      p.x = ev.clientX; p.y = ev.clientY;
      var q = p.matrixTransform(m.inverse());
      if (q.x < px[0] || q.x > px[1]) { hide(); return; }
      var x = dx[0] + (q.x - px[0]) / (px[1] - px[0]) * (dx[1] - dx[0]);
      var rows = [], at = null;
      series.forEach(function (s) {
        var k = nearest(s.x, x);
        if (k < 0) return;
        if (at === null) at = s.x[k];
        rows.push('<i style="background:' + esc(s.color) + '"></i>' + esc(s.label) + ' <b>' + fmt(s.y[k]) + '</b> ' + esc(unit));
      });
      if (!rows.length) { hide(); return; }
      var cx = px[0] + (at - dx[0]) / (dx[1] - dx[0]) * (px[1] - px[0]);
      cursor.setAttribute('x1', cx); cursor.setAttribute('x2', cx);
      cursor.style.display = '';
      tip.innerHTML = '<div>' + esc(xlabel(kind, at)) + '</div>' + rows.join('<br>');
      tip.style.display = 'block';
      var left = ev.clientX + 14, top = ev.clientY + 12;
      if (left + tip.offsetWidth > window.innerWidth - 8) left = ev.clientX - tip.offsetWidth - 14;
      if (top + tip.offsetHeight > window.innerHeight - 8) top = ev.clientY - tip.offsetHeight - 12;
      tip.style.left = left + 'px'; tip.style.top = top + 'px';
    });
  });
})();
