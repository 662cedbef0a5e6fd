// history.js: the "Trends" tab, when the report was built with --history: each headline metric of the run history
// (genevals/history/trends.py), its mean and 95% CI per system across runs, as a chart and a table.
function trendRunLabel(run) { return "#" + run.id; }
function trendChart(series) {
  var W = 560, H = 180, L = 44, R = 10, T = 10, B = 24, runs = D.history.runs, lo = Infinity, hi = -Infinity;
  series.systems.forEach(function (s) {
    s.points.forEach(function (p) {
      var ci = p.ci95 || [p.mean, p.mean];
      lo = Math.min(lo, p.mean, ci[0] === null ? p.mean : ci[0]); hi = Math.max(hi, p.mean, ci[1] === null ? p.mean : ci[1]);
    });
  });
  if (isUnit(series.metric)) { lo = Math.min(lo, 0); hi = Math.max(hi, 1); }
  if (hi - lo < 1e-9) { hi = lo + 1; }
  function x(i) { return L + (runs.length < 2 ? (W - L - R) / 2 : i * (W - L - R) / (runs.length - 1)); }
  function y(v) { return T + (hi - v) * (H - T - B) / (hi - lo); }
  var svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "class": "trend-chart",
    "aria-label": series.metric + " across " + plural(runs.length, "run") });
  [lo, hi].forEach(function (v) {
    svg.appendChild(svgEl("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end", "font-size": 10, text: fmt(v, 2) }));
  });
  runs.forEach(function (run, i) {
    svg.appendChild(svgEl("text", { x: x(i), y: H - 6, "text-anchor": "middle", "font-size": 10, text: trendRunLabel(run) }));
  });
  series.systems.forEach(function (s, k) {
    var color = PALETTE[k % PALETTE.length], path = "";
    s.points.forEach(function (p, j) {
      path += (j ? " L " : "M ") + x(p.run) + " " + y(p.mean);
      if (p.ci95 && p.ci95[0] !== null && p.ci95[1] !== null) {
        svg.appendChild(svgEl("line", { x1: x(p.run), x2: x(p.run), y1: y(p.ci95[0]), y2: y(p.ci95[1]), stroke: color, "stroke-width": 2, opacity: 0.5 }));
      }
      var dot = svgEl("circle", { cx: x(p.run), cy: y(p.mean), r: 3.5, fill: color, "class": "trend-point",
        "data-system": s.system, "data-run": String(runs[p.run].id), "data-mean": String(p.mean) });
      attachTip(dot, s.system + " \u00B7 run #" + runs[p.run].id + ": " + fmt(p.mean, 4) +
        (p.ci95 ? " [" + fmt(p.ci95[0], 3) + ", " + fmt(p.ci95[1], 3) + "]" : "") + " (" + p.scored + " of " + p.total + ")");
      svg.appendChild(dot);
    });
    svg.insertBefore(svgEl("path", { d: path, fill: "none", stroke: color, "stroke-width": 1.5 }), svg.firstChild);
  });
  return svg;
}
function trendTable(series) {
  var runs = D.history.runs, head = el("tr", null, [el("th", { text: "run" }), el("th", { text: "finished (UTC)" }), el("th", { text: "commit" })]);
  series.systems.forEach(function (s) { head.appendChild(el("th", { text: s.system })); });
  var body = el("tbody");
  runs.forEach(function (run, i) {
    var row = el("tr", null, [el("td", { "class": "mono", text: trendRunLabel(run) }), el("td", { text: (run.finished || "").slice(0, 19).replace("T", " ") }),
      el("td", { "class": "mono", text: (run.commit || "\u2013").slice(0, 12) })]);
    series.systems.forEach(function (s) {
      var p = s.points.filter(function (q) { return q.run === i; })[0];
      row.appendChild(el("td", { "class": "num", text: p ? fmt(p.mean, 4) + (p.ci95 ? " [" + fmt(p.ci95[0], 2) + ", " + fmt(p.ci95[1], 2) + "]" : "") : "\u2013" }));
    });
    body.appendChild(row);
  });
  return el("table", { "class": "trend-table" }, [el("thead", null, head), body]);
}
function trendsTab(root) {
  var h = D.history;
  root.appendChild(el("p", { "class": "small muted", text: plural(h.runs.length, "run") + " of the history " + h.path +
    " (mean and 95% CI per system; `genevals history show RUN` gives the same in the terminal)" }));
  h.series.forEach(function (series) {
    root.appendChild(el("div", { "class": "card trend", "data-metric": series.metric }, [el("h3", { "class": "mono", text: series.metric }),
      trendChart(series), trendTable(series)]));
  });
}
registerTab({ id: "trends", title: "Trends", order: 45, render: trendsTab, when: function () { return !!(D.history && D.history.series.length); } });
