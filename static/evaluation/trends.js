// Trend per metric on the evaluation dashboard: one small uPlot chart per metric (vendored uPlot).
(function () {
  const el = document.getElementById("trend-data");
  if (!el || typeof uPlot === "undefined") return;
  const charts = JSON.parse(el.textContent);
  const scale = { share: 100, ms: 1, usd: 1, count: 1, tokens: 1 };
  const suffix = { share: " %", ms: " ms", usd: " $", count: "", tokens: "" };
  for (const c of charts) {
    const box = document.getElementById("trend-" + c.key);
    if (!box || !c.points.length) continue;
    const k = scale[c.unit] || 1;
    const xs = c.points.map((p) => p.t);
    const ys = c.points.map((p) => p.value * k);
    const target = c.points.map(() => c.target * k);
    const width = Math.max(200, box.clientWidth || 240);
    new uPlot({
      width: width, height: 110, legend: { show: false }, cursor: { y: false },
      scales: { x: { time: true } },
      axes: [{ show: false }, { size: 64, font: "11px system-ui", values: (u, vals) => vals.map((v) => +v.toFixed(2) + (suffix[c.unit] || "")) }],
      series: [{}, { label: c.name, stroke: "#0b5cad", width: 2, points: { size: 5 } },
               { label: "target", stroke: "#b42318", dash: [4, 4], width: 1, points: { show: false } }],
    }, [xs, ys, target], box);
  }
})();
