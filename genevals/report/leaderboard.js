// leaderboard.js: the Overview's first screen, the answer: one sentence saying what the run found, the leaderboard
// (systems as rows, the headline metrics as columns, the best per column and each significant paired difference
// against it marked; D.leaderboard, built by genevals.stats.comparisons.leaderboard), then the caveats, one line each
// that expands (<details>), so that none of them pushes the scores off the first screen.

function labelIndex(label) {
  for (var i = 0; i < D.systems.length; i++) if (D.systems[i].label === label) return i;
  return -1;
}

// "30/30": scored of total, from the leaderboard's value (n, and total or coverage as summary.json has them).
function scoredOf(v) {
  if (v.n === null || v.n === undefined) return "";
  var total = v.total !== undefined && v.total !== null ? v.total : (v.coverage ? Math.round(v.n / v.coverage) : null);
  return total === null ? String(v.n) : v.n + "/" + total;
}

function leaderboardCell(lb, row, metric, versus) {
  var v = row.values ? row.values[metric] : null;
  if (!v || v.mean === null || v.mean === undefined) return el("td", { "class": "num muted", text: "\u2013" });
  var best = lb.best && lb.best[metric] === row.system;
  var ci = v.ci95 && v.ci95[0] !== null ? "[" + fmt(v.ci95[0]) + ", " + fmt(v.ci95[1]) + "]" : "";
  var mark = null, test = versus[row.system + "\u0000" + metric];
  if (best) {
    mark = chip("best", "best-mark", "the best mean of this column");
  } else if (test && test.significant) {
    var d = -test.mean_difference;  // versus_best holds best minus this system; the cell shows this system's side
    mark = chip((d > 0 ? "+" : "\u2212") + fmt(Math.abs(d)) + " vs " + test.best + ", p " + (test.p_value < 0.001 ? "< 0.001" : "= " + fmtP(test.p_value)),
      "sig-mark", "significant paired difference from the best system (" + test.test_text + ")");
  } else if (test && test.identical) {
    mark = el("span", { "class": "small muted identical", text: "identical to " + test.best + " on every sample" });
  } else if (test && test.p_value === null) {
    mark = el("span", { "class": "small muted too-few", text: "too few pairs to test vs " + test.best + " (" + test.n_pairs + ")" });
  } else if (test) {
    mark = el("span", { "class": "small muted", text: "n.s. vs " + test.best + " (p " + fmtP(test.p_value) + ")" });
  }
  return el("td", { "class": "num lb-cell" + (best ? " best" : "") + (test && test.significant ? " significant" : ""),
    "data-metric": metric }, [
    el("div", null, [el("strong", { "class": "lb-mean", text: fmt(v.mean) }), " ", el("span", { "class": "small muted", text: scoredOf(v) })]),
    el("div", { "class": "small muted", text: ci }),
    mark ? el("div", { "class": "small" }, mark) : null
  ]);
}

function leaderboardCard() {
  var lb = D.leaderboard;
  if (!lb || !lb.rows || !lb.rows.length) return null;
  var versus = {};
  (lb.versus_best || []).forEach(function (t) {
    versus[t.system + "\u0000" + t.metric] = Object.assign({ test_text: "paired bootstrap, seed " + D.seed }, t);
  });
  var head = el("tr", null, [el("th", { text: "System" })].concat(lb.metrics.map(function (m) {
    var lower = METRIC[m] && METRIC[m].lower_better;
    return el("th", { "class": "num", title: (METRIC[m] && METRIC[m].definition) || null },
      [el("span", { "class": "mono", text: m }), lower ? el("span", { "class": "muted", text: " (lower is better)" }) : null]);
  })));
  var body = el("tbody", null, lb.rows.map(function (row) {
    var i = labelIndex(row.system);
    return el("tr", { "data-system": row.system }, [
      el("th", { scope: "row", "class": "lb-system" }, [i >= 0 ? el("span", { "class": "swatch", style: { background: sysColor(i) } }) : null,
        row.system, i >= 0 ? el("div", { "class": "small muted", text: plural(D.systems[i].n, "sample") }) : null])
    ].concat(lb.metrics.map(function (m) { return leaderboardCell(lb, row, m, versus); })));
  }));
  var many = lb.rows.length > 1;
  return el("div", { "class": "card", id: "leaderboard" }, [
    el("div", { "class": "table-wrap" }, el("table", { "class": "leaderboard-table" }, [el("thead", null, head), body])),
    el("p", { "class": "small muted", text: "Mean, 95% CI and scored/total samples" +
      (many ? "; \u201cbest\u201d marks the best mean of each column; a difference from it is marked with its p-value " +
        "when the paired bootstrap on the questions both systems scored finds it significant (p < 0.05), \u201cn.s.\u201d " +
        "when not (the Compare tab has every pair)." : ".") })
  ]);
}

// One caveat: a line that expands to its full text (and its further lines) when clicked.
function caveat(cls, id, title, line, more) {
  return el("details", { "class": "caveat " + cls, id: id || null }, [
    el("summary", null, [el("strong", { text: title }), line ? " " + line : null]),
    more && more.length ? el("div", { "class": "caveat-body" }, more.map(function (t) { return el("div", { text: t }); })) : null
  ]);
}

// Metrics whose mean covers too few samples, with their top unscored reasons.
function lowCoverageCaveat() {
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
  var more = lines.slice(1, 20).concat(lines.length > 20 ? ["... and " + (lines.length - 20) + " more"] : []);
  return caveat("warning", "coverage-warning", "Low coverage: " + plural(lines.length, "mean") + " cover less than " +
    Math.round(100 * D.min_coverage) + "% of their samples and get no band:", lines[0], more);
}

// How many samples the page holds in full, when it does not hold them all.
function coverageCaveat() {
  var c = D.coverage;
  if (!textsTrimmed() && !rowsTrimmed()) return null;
  return caveat("notice", "coverage-note", "Detailed samples: " + fmtInt(c.detailed) + " of " + fmtInt(c.total) + ".",
    "The report is limited to " + fmtInt(c.max_detailed) + " detailed samples" +
      (c.max_contexts ? " and " + fmtInt(c.max_contexts) + " retrieved contexts in all" : "") +
      ": it embeds the question, answer, " +
      "contexts, references and judge claims of " + fmtInt(c.detailed) + " of the " + fmtInt(c.total) + " samples, " +
      "first the " + fmtInt(c.hallucinated) + " with contradicted or unverifiable claims, then those with unscored metrics (" +
      fmtInt(c.flagged) + " flagged in all), then the rest in file order. " +
      (rowsTrimmed() ? "The samples table and scatter plot hold the values of " + fmtInt(c.embedded) + " samples. "
        : "The samples table holds the values of every sample. ") +
      "Means, confidence intervals, histograms, verdict counts and paired comparisons use all " + fmtInt(c.total) +
      " samples; results.jsonl has everything (genevals report --max-samples N embeds more).");
}

// Each run's languages and how many samples fell back (summary.json's language, the terminal's line).
function languageCaveats() {
  return D.runs.filter(function (run) { return run.language; }).map(function (run, i) {
    var line = String(run.language).replace(/^language: /, "");
    return caveat("notice", i ? null : "language-note", "Language" + (D.runs.length > 1 ? " (" + run.name + ")" : "") + ":", line);
  });
}

function caveatsSection() {
  var items = [];
  if (D.warnings.length) {
    // a warning's first line is the caveat, the lines after it its details (genevals.lifecycle.messages.first_line)
    items.push(el("div", { id: "judge-warning", "class": "caveat-group", role: "alert" }, D.warnings.map(function (w) {
      var lines = w.split("\n").filter(function (t) { return t.trim(); });
      return caveat("warning", null, "Judge warning:", lines[0], lines.slice(1));
    })));
  }
  [lowCoverageCaveat(), coverageCaveat()].concat(languageCaveats()).forEach(function (c) { if (c) items.push(c); });
  return items.length ? el("div", { "class": "caveats", id: "caveats" }, items) : null;
}

function answerSection(root) {
  var lb = D.leaderboard;
  if (lb && lb.sentence) root.appendChild(el("p", { "class": "answer-sentence", id: "answer-sentence", text: lb.sentence }));
  var card = leaderboardCard();
  if (card) root.appendChild(card);
  var caveats = caveatsSection();
  if (caveats) root.appendChild(caveats);
}
registerTabSection("overview", { id: "answer", order: -20, render: answerSection });
