/* Draw uPlot charts from <script type="application/json"> data. Re-run after HTMX swaps. */
(function () {
  "use strict";
  function readJson(id) { var el = document.getElementById(id); return el ? JSON.parse(el.textContent) : null; }
  function width(el) { return Math.max(el.clientWidth || 600, 300); }
  // A percent as the portal prints it (core/formatting.py percent): two decimals, a true minus
  // sign, no space, and no sign on a figure that reads zero.
  function pct(v, digits) {
    var shown = v.toFixed(digits);
    if (Number(shown) === 0) { shown = (0).toFixed(digits); }
    return shown.replace("-", "\u2212") + "%";
  }
  function pctFmt(u, v) { return v == null ? "" : pct(v, 2); }
  function pctAxis(u, vs) { return vs.map(function (v) { return v == null ? "" : pct(v, v % 1 === 0 ? 0 : 1); }); }

  function dateFmt(u, v) { return v == null ? "" : new Date(v * 1000).toISOString().slice(0, 10); }
  function numFmt(digits) {
    return function (u, v) { return v == null ? "" : v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }); };
  }
  // The legend shows the latest values until the pointer is over the chart, and again when it leaves.
  // The last date on which every series has a value (a benchmark may stop earlier), else the last date.
  function lastIndex(data) {
    for (var i = data[0].length - 1; i >= 0; i--) {
      if (data.every(function (s) { return s[i] != null; })) { return i; }
    }
    return data[0].length - 1;
  }
  function showLatest(u) { if (u.cursor.idx == null && u.data[0].length) { u.setLegend({ idx: lastIndex(u.data) }); } }

  function line(el, data, series, opts) {
    el.innerHTML = "";
    series.forEach(function (s) { if (!s.value) { s.value = numFmt(2); } });
    var plot = new uPlot(Object.assign({ width: width(el), height: parseInt(el.dataset.height || "300", 10),
      series: [{ label: "Date", value: dateFmt }].concat(series),
      axes: [{}, { size: 70 }], legend: { live: true }, hooks: { setCursor: [showLatest] } }, opts || {}), data, el);
    showLatest(plot);
    el.dataset.rendered = "true";
    window.addEventListener("resize", function () { plot.setSize({ width: width(el), height: plot.height }); });
    return plot;
  }

  function render(root) {
    (root || document).querySelectorAll("[data-chart]").forEach(function (el) {
      var d = readJson(el.dataset.source);
      if (!d) return;
      var kind = el.dataset.chart;
      if (kind === "price") {
        line(el, [d.t, d.close], [{ label: d.label, stroke: "#2563eb", width: 1.5 }]);
      } else if (kind === "growth") {
        var s = [{ label: "Portfolio", stroke: "#2563eb", width: 2, value: numFmt(3) }], data = [d.t, d.growth];
        if (d.benchmark_label) { s.push({ label: d.benchmark_label, stroke: "#6b7280", width: 1.5, spanGaps: true, value: numFmt(3) }); data.push(d.benchmark); }
        line(el, data, s);
      } else if (kind === "drawdown") {
        line(el, [d.t, d.drawdown], [{ label: "Drawdown", stroke: "#dc2626", fill: "rgba(220,38,38,0.15)", value: pctFmt }],
             { axes: [{}, { size: 70, values: pctAxis }] });
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () { render(document); });
  document.addEventListener("htmx:afterSettle", function (e) { render(e.target); });
})();
