// charts.js: small inline-SVG charts (histograms, grouped bars, rank bars, verdicts, scatter).

// The smallest 4 x step (step 1, 2 or 5 x 10^k; integer for counts) that reaches v.
function niceMax(v, integer) {
  if (!(v > 0)) return integer ? 4 : 1;
  var raw = v / 4, p = Math.pow(10, Math.floor(Math.log10(raw))), n = raw / p;
  var step = (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * p;
  if (integer) step = Math.max(1, Math.ceil(step));
  return step * 4;
}

function legend(series) {
  return el("div", { "class": "legend" }, series.map(function (s) {
    return el("span", null, [el("span", { "class": "swatch", style: { background: s.color } }), s.label]);
  }));
}

// Grouped vertical bars: categories on x, one bar per series in each category.
function vbars(opts) {
  var W = opts.width || 360, H = opts.height || 200, m = { l: 38, r: 8, t: 10, b: 34 };
  var iw = W - m.l - m.r, ih = H - m.t - m.b;
  var maxV = niceMax(Math.max.apply(null, [0].concat(opts.series.map(function (s) { return Math.max.apply(null, [0].concat(s.values)); }))), true);
  var svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "class": "chart " + (opts.cls || ""), "aria-label": opts.title || "" });
  var g = svgEl("g", { transform: "translate(" + m.l + "," + m.t + ")" });
  svg.appendChild(g);
  for (var t = 0; t <= 4; t++) {
    var y = ih - ih * t / 4;
    g.appendChild(svgEl("line", { "class": "gridline", x1: 0, x2: iw, y1: y, y2: y }));
    g.appendChild(svgEl("text", { x: -5, y: y + 3, "text-anchor": "end", "font-size": 9, text: String(+(maxV * t / 4).toFixed(2)) }));
  }
  var n = opts.categories.length, bw = iw / Math.max(1, n), ns = opts.series.length;
  var inner = Math.max(1, (bw * 0.84) / ns);
  var every = Math.max(1, Math.ceil(n / (iw / 34)));
  opts.categories.forEach(function (cat, i) {
    opts.series.forEach(function (s, k) {
      var v = s.values[i] || 0, h = ih * v / maxV;
      var rect = svgEl("rect", { "class": "bar", x: i * bw + bw * 0.08 + k * inner, y: ih - h, width: Math.max(0.5, inner - 1), height: h, fill: s.color });
      attachTip(rect, s.label + " \u00B7 " + cat + ": " + v);
      g.appendChild(rect);
    });
    if (i % every === 0) g.appendChild(svgEl("text", { x: i * bw + bw / 2, y: ih + 13, "text-anchor": "middle", "font-size": 9, text: cat }));
  });
  g.appendChild(svgEl("line", { "class": "axis", x1: 0, x2: iw, y1: ih, y2: ih, stroke: "#aab4be" }));
  if (opts.xLabel) g.appendChild(svgEl("text", { x: iw / 2, y: ih + 28, "text-anchor": "middle", "font-size": 10, text: opts.xLabel }));
  return svg;
}

// Horizontal grouped bars with 95% CI whiskers on a 0-1 axis: one row group per metric, one bar per system.
function hbarsCI(metrics) {
  var ns = D.systems.length, barH = 11, gap = 10, m = { l: 150, r: 20, t: 22, b: 10 }, W = 760;
  var groupH = ns * barH + gap, H = m.t + m.b + metrics.length * groupH, iw = W - m.l - m.r;
  var svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, "class": "chart system-bars", role: "img", "aria-label": "mean by system" });
  for (var t = 0; t <= 5; t++) {
    var x = m.l + iw * t / 5;
    svg.appendChild(svgEl("line", { "class": "gridline", x1: x, x2: x, y1: m.t - 4, y2: H - m.b }));
    svg.appendChild(svgEl("text", { x: x, y: 12, "text-anchor": "middle", "font-size": 10, text: (t / 5).toFixed(1) }));
  }
  metrics.forEach(function (name, r) {
    var y0 = m.t + r * groupH;
    svg.appendChild(svgEl("text", { x: m.l - 8, y: y0 + (ns * barH) / 2 + 4, "text-anchor": "end", "font-size": 11, text: name }));
    D.systems.forEach(function (sys, k) {
      var s = sys.summary[name];
      if (!s || s.mean === null) return;
      var y = y0 + k * barH, w = iw * Math.max(0, Math.min(1, s.mean));
      var rect = svgEl("rect", { "class": "bar", x: m.l, y: y, width: Math.max(0.5, w), height: barH - 2, fill: sysColor(k), opacity: 0.85 });
      attachTip(rect, sys.label + " \u00B7 " + name + ": " + fmt(s.mean, 4) + (s.ci95 ? " [" + fmt(s.ci95[0]) + ", " + fmt(s.ci95[1]) + "]" : ""));
      svg.appendChild(rect);
      if (s.ci95 && s.ci95[0] !== null) {
        var x1 = m.l + iw * Math.max(0, Math.min(1, s.ci95[0])), x2 = m.l + iw * Math.max(0, Math.min(1, s.ci95[1])), ym = y + (barH - 2) / 2;
        svg.appendChild(svgEl("line", { x1: x1, x2: x2, y1: ym, y2: ym, stroke: "#1f2328", "stroke-width": 1.2 }));
        svg.appendChild(svgEl("line", { x1: x1, x2: x1, y1: ym - 3, y2: ym + 3, stroke: "#1f2328" }));
        svg.appendChild(svgEl("line", { x1: x2, x2: x2, y1: ym - 3, y2: ym + 3, stroke: "#1f2328" }));
      }
    });
  });
  return svg;
}

function systemSeries(valuesFor) {
  return D.systems.map(function (s, i) { return { label: s.label, color: sysColor(i), values: valuesFor(i) }; });
}

// Bins come from the builder (D.histograms), counted over every sample, embedded in the page or not.
function histogram(name) {
  var h = D.histograms[name];
  if (!h || !h.n) return null;
  var unit = isUnit(name), bins = h.counts.length ? h.counts[0].length : 10, width = (h.hi - h.lo) / bins, cats = [];
  for (var b = 0; b < bins; b++) cats.push(+(h.lo + b * width).toFixed(unit ? 1 : 2) + "");
  var series = systemSeries(function (i) { return h.counts[i] || new Array(bins).fill(0); });
  return el("div", { "class": "card histogram", "data-metric": name }, [
    el("div", { "class": "chart-title mono", text: name }),
    vbars({ categories: cats, series: series, width: 320, height: 170, xLabel: "bin lower edge (n = " + h.n + ")", title: name })
  ]);
}

function rankChart() {
  var cats = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", ">10", "not found"], other = D.ranks ? D.ranks.other : 0;
  var series = systemSeries(function (i) { return D.ranks && D.ranks.counts[i] ? D.ranks.counts[i] : new Array(cats.length).fill(0); });
  return el("div", { "class": "card", id: "rank-chart" }, [
    el("h3", { text: "Rank of the first relevant document" }),
    vbars({ categories: cats, series: series, width: 560, height: 220, xLabel: "rank (not found = no relevant document retrieved)", cls: "rank" }),
    legend(series),
    other ? el("p", { "class": "small muted", text: other + " sample(s) had no relevance labels and are not shown." }) : null
  ]);
}

function verdictChart() {
  var card = el("div", { "class": "card", id: "verdict-chart" }, el("h3", { text: "Judge verdicts by system (claims)" }));
  if (!hasJudge()) return append(card, el("p", { "class": "empty", text: "No judge verdicts in this report." }));
  var W = 560, rowH = 26, m = { l: 130, r: 10, t: 6 }, H = m.t + D.systems.length * rowH + 6, iw = W - m.l - m.r;
  var svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, "class": "chart verdicts", role: "img" });
  var table = el("tbody");
  D.systems.forEach(function (sys, i) {
    var totals = D.verdicts[i] || {}, judged = totals.judged || 0, counts = {};
    VERDICTS.forEach(function (v) { counts[v] = totals[v] || 0; });
    var total = counts.supported + counts.contradicted + counts.unverifiable, x = m.l, y = m.t + i * rowH;
    table.appendChild(el("tr", null, [el("td", { text: sys.label }), el("td", { "class": "num", text: String(judged) }), el("td", { "class": "num", text: String(total) })]
      .concat(VERDICTS.map(function (v) { return el("td", { "class": "num", text: counts[v] + (total ? " (" + (100 * counts[v] / total).toFixed(1) + "%)" : "") }); }))));
    svg.appendChild(svgEl("text", { x: m.l - 8, y: y + 15, "text-anchor": "end", "font-size": 11, text: sys.label }));
    VERDICTS.forEach(function (v) {
      var w = total ? iw * counts[v] / total : 0;
      if (!w) return;
      var rect = svgEl("rect", { "class": "bar", x: x, y: y + 2, width: w, height: rowH - 6, fill: VERDICT_COLORS[v], "data-verdict": v });
      attachTip(rect, sys.label + " \u00B7 " + v + ": " + counts[v] + " of " + total + " (" + (100 * counts[v] / total).toFixed(1) + "%)");
      svg.appendChild(rect);
      if (w > 28) svg.appendChild(svgEl("text", { x: x + w / 2, y: y + 16, "text-anchor": "middle", "font-size": 10, style: { fill: "#fff" }, text: String(counts[v]) }));
      x += w;
    });
  });
  return append(card, [svg, legend(VERDICTS.map(function (v) { return { label: v, color: VERDICT_COLORS[v] }; })),
    el("table", { "class": "small", style: { marginTop: "10px" } }, [el("thead", null, el("tr", null, ["System", "Samples judged", "Claims"].concat(VERDICTS)
      .map(function (h, i) { return el("th", { "class": i ? "num" : null, text: h }); }))), table])]);
}

function scatterCard() {
  var names = D.metrics.map(function (m) { return m.name; });
  var recalls = names.filter(function (n) { return /^recall@/.test(n); });
  var state = { x: recalls.indexOf("recall@5") >= 0 ? "recall@5" : (recalls[0] || names[0]),
    y: names.indexOf("faithfulness") >= 0 ? "faithfulness" : (names.indexOf("token_f1") >= 0 ? "token_f1" : names[0]), jitter: true };
  var holder = el("div");
  function draw() {
    clear(holder);
    var W = 560, H = 340, m = { l: 44, r: 18, t: 16, b: 40 }, iw = W - m.l - m.r, ih = H - m.t - m.b, n = 0;
    var svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, "class": "chart scatter", role: "img" });
    var g = svgEl("g", { transform: "translate(" + m.l + "," + m.t + ")" });
    svg.appendChild(g);
    var pts = [];
    D.samples.forEach(function (s, idx) {
      var x = metricValue(s, state.x), y = metricValue(s, state.y);
      if (x !== null && y !== null) pts.push([x, y, s, idx]);
    });
    var xs = pts.map(function (p) { return p[0]; }), ys = pts.map(function (p) { return p[1]; });
    var xMax = isUnit(state.x) ? 1 : niceMax(Math.max.apply(null, [1].concat(xs))), yMax = isUnit(state.y) ? 1 : niceMax(Math.max.apply(null, [1].concat(ys)));
    for (var t = 0; t <= 4; t++) {
      g.appendChild(svgEl("line", { "class": "gridline", x1: 0, x2: iw, y1: ih * t / 4, y2: ih * t / 4 }));
      g.appendChild(svgEl("line", { "class": "gridline", x1: iw * t / 4, x2: iw * t / 4, y1: 0, y2: ih }));
      g.appendChild(svgEl("text", { x: -5, y: ih - ih * t / 4 + 3, "text-anchor": "end", "font-size": 9, text: String(+(yMax * t / 4).toFixed(2)) }));
      g.appendChild(svgEl("text", { x: iw * t / 4, y: ih + 13, "text-anchor": "middle", "font-size": 9, text: String(+(xMax * t / 4).toFixed(2)) }));
    }
    pts.forEach(function (p, i) {
      // Deterministic jitter so tied points (recall is often 0 or 1) stay visible.
      var jx = state.jitter ? ((i * 7919) % 101 / 100 - 0.5) * 0.03 : 0, jy = state.jitter ? ((i * 104729) % 97 / 96 - 0.5) * 0.03 : 0;
      var c = svgEl("circle", { "class": "pt", cx: iw * (p[0] / xMax + jx), cy: ih - ih * (p[1] / yMax + jy), r: 3.5,
        fill: sysColor(p[2].sys), "fill-opacity": 0.6, stroke: sysColor(p[2].sys), style: { cursor: "pointer" } });
      attachTip(c, sysLabel(p[2].sys) + " \u00B7 " + p[2].id + ": " + state.x + " = " + fmt(p[0]) + ", " + state.y + " = " + fmt(p[1]));
      c.addEventListener("click", function () { openSample(p[3]); });
      g.appendChild(c);
      n += 1;
    });
    g.appendChild(svgEl("text", { x: iw / 2, y: ih + 30, "text-anchor": "middle", "font-size": 11, text: state.x + " (retrieval)" }));
    g.appendChild(svgEl("text", { transform: "rotate(-90)", x: -ih / 2, y: -32, "text-anchor": "middle", "font-size": 11, text: state.y + " (generation)" }));
    append(holder, [svg, el("div", { "class": "small muted", text: n + " samples with both values; click a point to open it." +
      (rowsTrimmed() ? " The page holds the values of " + fmtInt(D.coverage.embedded) + " of " + fmtInt(D.coverage.total) + " samples; only those are plotted." : "") })]);
  }
  var card = el("div", { "class": "card", id: "scatter-chart" }, [
    el("h3", { text: "Retrieval vs generation" }),
    el("div", { "class": "toolbar" }, [
      selectBox(names.map(function (n) { return [n, n]; }), state.x, function (v) { state.x = v; draw(); }, "x"),
      selectBox(names.map(function (n) { return [n, n]; }), state.y, function (v) { state.y = v; draw(); }, "y"),
      el("label", { "class": "check" }, [el("input", { type: "checkbox", checked: true, onchange: function (e) { state.jitter = e.target.checked; draw(); } }), "Jitter"])
    ]), holder, legend(systemSeries(function () { return []; }))]);
  draw();
  return card;
}

function chartsTab(root) {
  var barsHolder = el("div");
  var choice = "key";
  function drawBars() {
    clear(barsHolder);
    var names = choice === "key" ? keyMetrics(12).filter(isUnit) : D.metrics.map(function (m) { return m.name; }).filter(isUnit);
    append(barsHolder, hbarsCI(names));
  }
  var top = el("div", { "class": "grid-2" });
  root.appendChild(top);
  top.appendChild(el("div", { "class": "card", id: "system-bars" }, [
    el("div", { "class": "toolbar" }, [el("h3", { text: "Mean by system, with 95% CI" }),
      selectBox([["key", "Key metrics"], ["all", "All 0\u20131 metrics"]], "key", function (v) { choice = v; drawBars(); })]),
    barsHolder, legend(systemSeries(function () { return []; }))]));
  drawBars();
  top.appendChild(scatterCard());
  root.appendChild(el("div", { "class": "grid-2" }, [verdictChart(), D.metrics.some(function (m) { return m.name === "first_relevant_rank"; }) ? rankChart() : el("div")]));
  root.appendChild(el("h2", { text: "Score distributions" }));
  var grid = el("div", { "class": "grid", id: "histograms" });
  D.metrics.forEach(function (m) { var h = m.name === "first_relevant_rank" ? null : histogram(m.name); if (h) grid.appendChild(h); });
  root.appendChild(grid);
  root.appendChild(legend(systemSeries(function () { return []; })));
}
registerTab({ id: "charts", title: "Charts", order: 20, render: chartsTab });
