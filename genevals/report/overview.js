// overview.js: the overview tab below the leaderboard (leaderboard.js): every metric with the systems side by side,
// why bands can disagree, the bands and thresholds; and the compare tab.

// Scored of total, e.g. "2 of 9 (22%)".
function coverageText(s) {
  var total = (s.scored || 0) + (s.unscored || 0);
  return s.scored + " of " + total + (total ? " (" + Math.round(100 * s.scored / total) + "%)" : "");
}

var BAND_RANK = { Excellent: 0, Good: 1, Moderate: 2, Fair: 3, Poor: 4 };

// Bands read every mean against the same 0-1 limits, but the metrics measure different things, so a high band can
// sit beside a low one (context_relevance "Poor" 0.09 beside recall@10 "Excellent" 0.90). The widest such gap of
// one system (between leaderboard metrics when there is one: those are read first) is explained above the table
// with what each of the two measures (its declared definition); every row carries its own definition.
function bandDisagreement() {
  var widest = null, headline = (D.leaderboard && D.leaderboard.metrics) || [];
  function weight(x) { return headline.indexOf(x.m.name) >= 0 ? 1 : 0; }
  D.systems.forEach(function (sys) {
    var banded = D.metrics.map(function (m) {
      var s = sys.summary[m.name];
      var b = s ? bandOf(m.name, s.mean, s) : null;
      return b ? { m: m, mean: s.mean, band: b } : null;
    }).filter(function (x) { return x && x.m.definition; });
    banded.forEach(function (hi) {
      banded.forEach(function (lo) {
        var gap = BAND_RANK[lo.band] - BAND_RANK[hi.band], score = 10 * gap + weight(hi) + weight(lo);
        if (gap >= 3 && (!widest || score > widest.score)) widest = { score: score, hi: hi, lo: lo, sys: sys };
      });
    });
  });
  if (!widest) return null;
  function one(x) { return x.m.name + " is " + x.band + " at " + fmt(x.mean, 2) + " (" + x.m.definition + ")"; }
  return el("p", { "class": "notice small", id: "band-disagreement" }, [el("strong", { text: "Why bands disagree: " }),
    "each band reads one mean against the same 0\u20131 limits, but the metrics measure different things. For " +
    widest.sys.label + ", " + one(widest.hi) + ", while " + one(widest.lo) + ". A high band beside a low one says " +
    "the two measure different things, not that one is wrong; the line under each metric says what it measures."]);
}

function metricCells(m, sys) {
  var s = sys.summary[m.name];
  if (!s) return [el("td", { "class": "num muted", text: "\u2013" }), el("td"), el("td")];
  var band = bandOf(m.name, s.mean, s);
  var statuses = Object.keys(s.statuses || {}).filter(function (k) { return k !== "ok"; })
    .map(function (k) { return k + ": " + s.statuses[k]; }).join(", ");
  return [
    el("td", { "class": "num" }, [fmt(s.mean, 4), el("div", { "class": "small muted",
      text: s.ci95 ? "[" + fmt(s.ci95[0]) + ", " + fmt(s.ci95[1]) + "]" : "" })]),
    el("td", { "class": "num small", title: statuses ? "unscored: " + statuses : null },
      [coverageText(s), statuses ? infoIcon() : null]),
    el("td", null, band ? chip(band, "band-" + band) : el("span", { "class": "muted", text: "\u2013" }))
  ];
}

// Every metric as a row, every system as a group of columns: systems side by side, never stacked.
function metricsTable() {
  var top = el("tr", null, [el("th", { rowspan: "2", text: "Metric" })].concat(D.systems.map(function (sys, i) {
    return el("th", { colspan: "3", "class": "system-head", "data-system": String(i) }, [
      el("span", { "class": "swatch", style: { background: sysColor(i) } }), sys.label,
      el("div", { "class": "small muted", text: "run " + D.runs[sys.run].name + " \u00B7 " + plural(sys.n, "sample") })]);
  })));
  var sub = el("tr", null, [].concat.apply([], D.systems.map(function () {
    return [el("th", { "class": "num", text: "Mean [95% CI]" }), el("th", { "class": "num", text: "Scored" }), el("th", { text: "Band" })];
  })));
  var body = el("tbody", null, D.metrics.filter(function (m) {
    return D.systems.some(function (sys) { return !!sys.summary[m.name]; });
  }).map(function (m) {
    return el("tr", { "data-metric": m.name }, [
      el("td", { "class": "metric-name" }, [el("span", { "class": "mono", text: m.name }),
        m.lower_better ? el("span", { "class": "muted small", text: " (lower is better)" }) : null, metricMarks(m),
        m.definition ? el("div", { "class": "small muted clip-2 definition", title: m.definition, text: m.definition }) : null])
    ].concat([].concat.apply([], D.systems.map(function (sys) { return metricCells(m, sys); }))));
  }));
  var corpus = D.systems.filter(function (sys) { return Object.keys(sys.corpus || {}).length; }).map(function (sys) {
    return el("p", { "class": "small muted" }, sys.label + " corpus scores: " + Object.keys(sys.corpus)
      .map(function (k) { return k + " = " + fmt(sys.corpus[k], 4); }).join(", "));
  });
  return el("div", { "class": "card systems", id: "metrics" }, [
    el("div", { "class": "table-wrap" }, el("table", { "class": "overview-table", id: "metrics-table" }, [el("thead", null, [top, sub]), body]))
  ].concat(corpus));
}

function bandsCard() {
  var items = D.bands.map(function (b, i) {
    var last = i === D.bands.length - 1;
    var higher = last ? "< " + D.bands[i - 1].min.toFixed(2) : "\u2265 " + b.min.toFixed(2);
    var lower = last ? "> " + D.bands[i - 1].max.toFixed(2) : "\u2264 " + b.max.toFixed(2);
    return el("span", null, [chip(b.name, "band-" + b.name), " " + higher + " (lower is better: " + lower + ")"]);
  });
  return el("div", { "class": "card" }, [
    el("h3", { text: "Interpretation bands" }),
    el("div", { "class": "legend" }, items),
    el("p", { "class": "small muted", text: "Bands are rough reading aids for means on a 0\u20131 scale, not calibrated quality levels. " +
      "Metrics declared lower-is-better (such as contradiction_rate) have their own, stricter limits; " +
      "metrics not on a 0\u20131 scale (such as first_relevant_rank) get no band, nor does a mean that covers less than " +
      Math.round(100 * D.min_coverage) + "% of its samples. Pass/fail comes only from the thresholds." })
  ]);
}

function thresholdsCard() {
  var names = Object.keys(D.thresholds);
  if (!names.length) {
    return el("div", { "class": "card" }, [el("h3", { text: "Thresholds" }),
      el("p", { "class": "muted", text: "No thresholds were set. Pass --fail-under METRIC=VALUE (higher is better), --fail-over METRIC=VALUE (lower is better) or --config thresholds.json to genevals report." })]);
  }
  var failed = 0;
  var rows = names.map(function (name) {
    var t = D.thresholds[name];
    return el("tr", null, [el("td", { "class": "mono", text: name }), el("td", { "class": "num", text: thresholdText(t) })]
      .concat(D.systems.map(function (sys) {
        var s = sys.summary[name];
        if (!s) { failed += 1; return el("td", null, chip("not computed", "fail")); }
        var ok = thresholdPasses(t, s.mean);
        if (!ok) failed += 1;
        return el("td", null, [chip(ok ? "pass" : "fail", ok ? "pass" : "fail"), " ", el("span", { "class": "small muted", text: fmt(s.mean) })]);
      })));
  });
  return el("div", { "class": "card", id: "thresholds" }, [
    el("h3", null, ["Thresholds ", chip(failed ? failed + " missed" : "all passed", failed ? "fail" : "pass")]),
    el("table", null, [el("thead", null, el("tr", null, [el("th", { text: "Metric" }), el("th", { "class": "num", text: "Limit" })]
      .concat(D.systems.map(function (s) { return el("th", { text: s.label }); })))), el("tbody", null, rows)])
  ]);
}

function overviewTab(root) {
  if (!D.systems.length) { root.appendChild(el("p", { "class": "empty", text: "No systems in these runs." })); return; }
  if (Object.keys(D.thresholds).length) root.appendChild(thresholdsCard());
  root.appendChild(el("h2", { text: "All metrics" }));
  var note = bandDisagreement();
  if (note) root.appendChild(note);
  root.appendChild(metricsTable());
  root.appendChild(bandsCard());
  var cards = validationCards();
  if (cards) root.appendChild(cards);
}
registerTab({ id: "overview", title: "Overview", order: 10, render: overviewTab });

function compareTab(root) {
  root.appendChild(el("h2", { text: "Paired comparisons" }));
  var unshared = (D.unshared_ids || []).map(function (p) { return "\u201c" + sysLabel(p[0]) + "\u201d and \u201c" + sysLabel(p[1]) + "\u201d"; });
  if (unshared.length) {
    root.appendChild(el("p", { "class": "notice", id: "unshared-ids", text: "Systems " + unshared.join(", ") +
      " share no question id, so they are not compared. A row without an id gets its row number as id: " +
      "if each row holds its question, run again with --map id=question." }));
  }
  var apart = {};  // metric and why -> the pairs of two runs' systems not compared (their signatures differ)
  (D.not_compared || []).forEach(function (n) {
    var k = n.metric + ": " + n.why;
    (apart[k] = apart[k] || []).push(sysLabel(n.a) + " vs " + sysLabel(n.b));
  });
  Object.keys(apart).forEach(function (k) {
    root.appendChild(el("p", { "class": "notice not-compared", text: "Not compared: " + k + " (" + apart[k].join(", ") +
      "). Scores made under different signatures (settings, language handling, model or prompt) are never compared." }));
  });
  if (!D.comparisons.length) {
    root.appendChild(el("p", { "class": "notice", text: D.systems.length < 2 ? "Comparisons need at least two systems." :
      "No metric was scored for at least two shared question ids by two systems." }));
    return;
  }
  root.appendChild(el("p", { "class": "small muted", text: "Differences are A \u2212 B on the question ids both systems scored. " +
    "The 95% CI and p come from the same seeded paired bootstrap of the mean difference (seed " + D.seed + "): p is " +
    "two-sided, and significant (p < 0.05) means exactly that the CI excludes 0. " +
    (D.comparison_pairs === "all" ? "Every pair of systems is listed (--all-pairs). " :
      "Listed: the systems within each run, and the same system across runs (genevals report --all-pairs lists every pair). ") +
    "There is no correction for multiple comparisons: with many metrics, some significant differences are expected by chance." }));
  var state = { metric: "", pair: "", sig: false };
  var pairs = [];
  D.comparisons.forEach(function (c) { var k = c.a + ":" + c.b; if (pairs.indexOf(k) < 0) pairs.push(k); });
  var body = el("tbody");
  var count = el("span", { "class": "count" });
  function draw() {
    clear(body);
    var rows = D.comparisons.filter(function (c) {
      return (!state.metric || c.metric === state.metric) && (!state.pair || c.a + ":" + c.b === state.pair) && (!state.sig || c.significant);
    });
    count.textContent = rows.length + " of " + D.comparisons.length + " comparisons";
    rows.forEach(function (c) {
      var lower = METRIC[c.metric] && METRIC[c.metric].lower_better;
      var better = !c.significant ? "\u2013" : ((c.mean_difference > 0) !== !!lower ? sysLabel(c.a) : sysLabel(c.b));
      body.appendChild(el("tr", { "class": c.significant ? "significant" : null }, [
        el("td", { "class": "mono", text: c.metric }), el("td", { text: sysLabel(c.a) }), el("td", { text: sysLabel(c.b) }),
        el("td", { "class": "num", text: String(c.n_pairs) }),
        el("td", { "class": "num", text: c.identical ? "0" : (c.mean_difference > 0 ? "+" : "") + fmt(c.mean_difference, 4) }),
        el("td", { "class": "num", text: c.ci95[0] === null || c.identical ? "\u2013" : "[" + fmt(c.ci95[0], 4) + ", " + fmt(c.ci95[1], 4) + "]" }),
        el("td", { "class": "num", text: c.identical ? "\u2013" : fmtP(c.p_value) }),
        // fewer pairs than a paired test needs (genevals.stats.MIN_PAIRS): no CI, no p, and said so
        el("td", null, c.significant ? el("span", { "class": "sig", text: "\u2713 significant" }) :
          c.identical ? el("span", { "class": "muted identical", text: "identical on every sample" }) :
          el("span", { "class": "muted" + (c.p_value === null ? " too-few" : ""), text: c.p_value === null ? "too few pairs to test" : "no",
            title: c.p_value === null ? "With n pairs the smallest possible two-sided p is 1/2^(n\u22121): below 6 pairs no difference can reach p < 0.05" : null })),
        el("td", { text: better })
      ]));
    });
  }
  root.appendChild(el("div", { "class": "card" }, [
    el("div", { "class": "toolbar" }, [
      selectBox([["", "All metrics"]].concat(D.metrics.map(function (m) { return [m.name, m.name]; })), "", function (v) { state.metric = v; draw(); }, "Metric"),
      selectBox([["", "All pairs"]].concat(pairs.map(function (k) { var p = k.split(":"); return [k, sysLabel(+p[0]) + " vs " + sysLabel(+p[1])]; })), "",
        function (v) { state.pair = v; draw(); }, "Pair"),
      el("label", { "class": "check" }, [el("input", { type: "checkbox", onchange: function (e) { state.sig = e.target.checked; draw(); } }), "Significant only"]),
      count
    ]),
    el("div", { "class": "table-wrap" }, el("table", { id: "compare-table" }, [
      el("thead", null, el("tr", null, ["Metric", "A", "B", "Pairs", "Mean diff (A \u2212 B)", "95% CI", "p", "Significant", "Better"].map(function (h, i) {
        return el("th", { "class": i >= 3 && i <= 6 ? "num" : null, text: h });
      }))), body]))
  ]));
  draw();
}
registerTab({ id: "compare", title: "Compare", order: 30, render: compareTab });
