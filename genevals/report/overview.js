// overview.js: the overview tab (per-system tables, bands, thresholds, signatures, judge) and the compare tab.

function ciBar(mean, ci) {
  var bar = el("span", { "class": "ci-bar", "aria-hidden": "true" });
  if (mean === null || mean < 0 || mean > 1) return bar;
  if (ci && ci[0] !== null && ci[1] !== null) {
    var lo = Math.max(0, Math.min(1, ci[0])), hi = Math.max(0, Math.min(1, ci[1]));
    bar.appendChild(el("span", { "class": "range", style: { left: (lo * 100) + "%", width: Math.max(0.5, (hi - lo) * 100) + "%" } }));
  }
  bar.appendChild(el("span", { "class": "dot", style: { left: (mean * 100) + "%" } }));
  return bar;
}

function thresholdCell(name, mean) {
  if (!(name in D.thresholds)) return el("td", { "class": "muted" }, "\u2013");
  var t = D.thresholds[name];
  var ok = thresholdPasses(t, mean);
  return el("td", null, chip((ok ? "pass " : "fail ") + thresholdText(t), ok ? "pass" : "fail",
    ok ? "mean is within the limit" : (mean === null ? "no scored samples" : "mean is beyond the limit")));
}

// Scored of total, e.g. "2 of 9 (22%)".
function coverageText(s) {
  var total = (s.scored || 0) + (s.unscored || 0);
  return s.scored + " of " + total + (total ? " (" + Math.round(100 * s.scored / total) + "%)" : "");
}

// One banner naming the metrics whose mean covers too few samples, and their top unscored reasons.
function lowCoverageBanner() {
  var lines = [];
  D.systems.forEach(function (sys) {
    D.metrics.forEach(function (m) {
      var s = sys.summary[m.name];
      var covered = coverageOf(s);
      if (covered === null || covered >= D.min_coverage) return;
      var reasons = Object.keys(s.statuses || {}).filter(function (k) { return k !== "ok"; })
        .sort(function (a, b) { return s.statuses[b] - s.statuses[a]; }).slice(0, 3)
        .map(function (k) { return k + " " + s.statuses[k]; }).join(", ");
      lines.push(sys.label + ": " + m.name + " scored " + coverageText(s) + (reasons ? "; unscored: " + reasons : ""));
    });
  });
  if (!lines.length) return null;
  return el("div", { "class": "warning", id: "coverage-warning", role: "alert" }, [
    el("strong", { text: "Low coverage: these means cover less than " + Math.round(100 * D.min_coverage) +
      "% of their samples and get no band" })].concat(lines.slice(0, 20).map(function (t) { return el("div", { text: t }); }))
    .concat(lines.length > 20 ? [el("div", { text: "... and " + (lines.length - 20) + " more" })] : []));
}

function systemTable(sys, index) {
  var body = el("tbody");
  D.metrics.forEach(function (m) {
    var s = sys.summary[m.name];
    if (!s) return;
    var band = bandOf(m.name, s.mean, s);
    var statuses = Object.keys(s.statuses || {}).filter(function (k) { return k !== "ok"; })
      .map(function (k) { return k + ": " + s.statuses[k]; }).join(", ");
    body.appendChild(el("tr", null, [
      el("td", null, [el("span", { "class": "mono", text: m.name }), m.lower_better ? el("span", { "class": "muted small", text: " (lower is better)" }) : null, metricMarks(m)]),
      el("td", { "class": "num", text: fmt(s.mean, 4) }),
      el("td", { "class": "num", text: s.ci95 ? "[" + fmt(s.ci95[0]) + ", " + fmt(s.ci95[1]) + "]" : "\u2013" }),
      el("td", null, isUnit(m.name) ? ciBar(s.mean, s.ci95) : null),
      el("td", { "class": "num", text: coverageText(s) }),
      el("td", { "class": "num", title: statuses || null, text: String(s.unscored) + (statuses ? " \u24D8" : "") }),
      el("td", null, band ? chip(band, "band-" + band) : el("span", { "class": "muted", text: "\u2013" })),
      thresholdCell(m.name, s.mean)
    ]));
  });
  var corpus = Object.keys(sys.corpus || {}).filter(function (k) { return typeof sys.corpus[k] === "number"; });
  var head = el("thead", null, el("tr", null, ["Metric", "Mean", "95% CI", "", "Scored of total", "Unscored", "Band", "Threshold"].map(function (h, i) {
    return el("th", { "class": i === 1 || i === 2 || i === 4 || i === 5 ? "num" : null, text: h });
  })));
  return el("div", { "class": "card", "data-system": String(index) }, [
    el("h3", null, [el("span", { "class": "swatch", style: { background: sysColor(index) } }), sys.label]),
    el("div", { "class": "muted small", text: "run " + D.runs[sys.run].name + " \u00B7 " +
      plural(sys.n, "sample") }),
    el("div", { "class": "table-wrap" }, el("table", { "class": "overview-table" }, [head, body])),
    corpus.length ? el("p", { "class": "small muted" }, "Corpus scores: " + corpus.map(function (k) { return k + " = " + fmt(sys.corpus[k], 4); }).join(", ")) : null
  ]);
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

function runCard() {
  var runs = D.runs.map(function (run) {
    var dl = el("dl", { "class": "kv" });
    var rows = [["Run", run.name], ["Folder", run.path], ["Samples", String(run.n_samples)], ["Skipped input rows", String(run.skipped)],
      ["genevals", run.genevals_version || "\u2013"], ["Bootstrap seed", run.seed === null ? "\u2013" : String(run.seed)]];
    ["input", "metrics", "interrupted"].forEach(function (k) { if (run.meta[k] !== undefined) rows.push([k, run.meta[k]]); });
    rows.forEach(function (r) { append(dl, [el("dt", { text: r[0] }), el("dd", { text: r[1] })]); });
    var sigs = el("dl", { "class": "kv" });
    Object.keys(run.signatures).forEach(function (k) { append(sigs, [el("dt", { text: k }), el("dd", { "class": "mono", text: run.signatures[k] })]); });
    return el("div", null, [dl, el("h4", { text: "Signatures" }), Object.keys(run.signatures).length ? sigs : el("p", { "class": "empty", text: "none recorded" })]);
  });
  var judge = D.judges.length ? D.judges.map(function (j) {
    var dl = el("dl", { "class": "kv judge" });
    Object.keys(j).forEach(function (k) { append(dl, [el("dt", { text: k }), el("dd", { "class": "mono", text: j[k] })]); });
    return dl;
  }) : el("p", { "class": "muted", text: "No LLM judge verdicts in this report (faithfulness was not run)." });
  return el("div", { "class": "grid-2" }, [
    el("div", { "class": "card" }, [el("h3", { text: D.runs.length > 1 ? "Runs" : "Run" })].concat(runs)),
    // each judge once (model.py merges a judge's per-sample fields); not all of them are LLMs (local-grounding)
    el("div", { "class": "card", id: "judges" }, [el("h3", { text: D.judges.length > 1 ? "Judges" : "Judge" }), judge])
  ]);
}

// How many samples the page holds in full, when it does not hold them all.
function coverageNote() {
  var c = D.coverage;
  if (!textsTrimmed() && !rowsTrimmed()) return null;
  return el("div", { "class": "notice", id: "coverage-note" }, [
    el("strong", { text: "Detailed samples: " + fmtInt(c.detailed) + " of " + fmtInt(c.total) + "." }),
    " The report is limited to " + fmtInt(c.max_detailed) + " detailed samples" +
      (c.max_contexts ? " and " + fmtInt(c.max_contexts) + " retrieved contexts in all" : "") +
      ": it embeds the question, answer, " +
      "contexts, references and judge claims of " + fmtInt(c.detailed) + " of the " + fmtInt(c.total) + " samples, " +
      "first the " + fmtInt(c.hallucinated) + " with contradicted or unverifiable claims, then those with unscored metrics (" +
      fmtInt(c.flagged) + " flagged in all), then the rest in file order. " +
      (rowsTrimmed() ? "The samples table and scatter plot hold the values of " + fmtInt(c.embedded) + " samples. "
        : "The samples table holds the values of every sample. ") +
      "Means, confidence intervals, histograms, verdict counts and paired comparisons use all " + fmtInt(c.total) +
      " samples; results.jsonl has everything (genevals report --max-samples N embeds more)."
  ]);
}

function overviewTab(root) {
  if (D.warnings.length) {
    root.appendChild(el("div", { "class": "warning", id: "judge-warning", role: "alert" }, [
      el("strong", { text: "Judge warning: verdicts may be unreliable" })].concat(D.warnings.map(function (w) { return el("div", { text: w }); }))));
  }
  var low = lowCoverageBanner();
  if (low) root.appendChild(low);
  var note = coverageNote();
  if (note) root.appendChild(note);
  root.appendChild(runCard());
  root.appendChild(el("div", { "class": "grid-2" }, [bandsCard(), thresholdsCard()]));
  var systems = el("div", { "class": "systems" });
  D.systems.forEach(function (sys, i) { systems.appendChild(systemTable(sys, i)); });
  if (!D.systems.length) systems.appendChild(el("p", { "class": "empty", text: "No systems in these runs." }));
  root.appendChild(el("h2", { text: "Metrics by system" }));
  root.appendChild(systems);
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
        el("td", { "class": "num", text: (c.mean_difference > 0 ? "+" : "") + fmt(c.mean_difference, 4) }),
        el("td", { "class": "num", text: "[" + fmt(c.ci95[0], 4) + ", " + fmt(c.ci95[1], 4) + "]" }),
        el("td", { "class": "num", text: fmtP(c.p_value) }),
        el("td", null, c.significant ? el("span", { "class": "sig", text: "\u2713 significant" }) : el("span", { "class": "muted", text: "no" })),
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
