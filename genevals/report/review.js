// review.js: every contradicted or unverifiable claim across the report, filterable, exportable as CSV.

// One CSV cell: formula-looking text gets a leading ' (so spreadsheets do not run it), then RFC 4180 quoting.
// Formula-looking: = + - @ (or a tab or CR) first, also behind leading spaces, line breaks, control or invisible
// format characters (zero-width space, BOM, joiners), and in their compatibility forms (fullwidth ＝＋－＠,
// small and superscript signs: NFKC folds them to = + - @), since spreadsheets trim or fold some of these.
var CSV_LEAD = /^[\s\p{Cc}\p{Cf}]+/u;
function formulaLike(s) {
  if (/^[\t\r]/.test(s)) return true;
  var first = s.replace(CSV_LEAD, "").slice(0, 4).normalize("NFKC").charAt(0);
  return first !== "" && "=+-@\u2212".indexOf(first) >= 0;
}
function csvCell(value) {
  var s = value === null || value === undefined ? "" : String(value);
  if (formulaLike(s)) s = "'" + s;
  if (/[",\r\n]/.test(s)) s = "\"" + s.replace(/"/g, "\"\"") + "\"";
  return s;
}
function toCSV(header, rows) {
  return [header].concat(rows).map(function (r) { return r.map(csvCell).join(","); }).join("\r\n") + "\r\n";
}
function download(name, text, type) {
  var blob = new Blob(["\uFEFF" + text], { type: type });
  var url = URL.createObjectURL(blob);
  var a = el("a", { download: name, style: { display: "none" } });
  a.href = url;
  document.body.appendChild(a);
  a.click();
  setTimeout(function () { URL.revokeObjectURL(url); a.remove(); }, 1000);
}

// The context a flagged claim is checked against: the cited one, else the best-ranked.
function nearestContext(sample, verdict) {
  if (verdict && verdict.context_index !== null && sample.ctx[verdict.context_index]) return verdict.context_index;
  var best = -1;
  sample.ctx.forEach(function (c, i) { if (best < 0 || c.rank < sample.ctx[best].rank) best = i; });
  return best < 0 ? null : best;
}

function flaggedClaims() {
  var out = [];
  D.samples.forEach(function (s, i) {
    claimRows(s).forEach(function (r, k) {
      if (r.label === "supported" || r.label === "from_history") return;  // repeating the user: no hallucination
      out.push({ sample: i, k: k, row: r, ctx: nearestContext(s, r.verdict) });
    });
  });
  return out;
}

function contextSnippet(sample, item) {
  if (item.ctx === null) return el("span", { "class": "empty", text: "no context" });
  var ctx = sample.ctx[item.ctx], v = item.row.verdict, start = -1, end = -1;
  if (v && v.context_index === item.ctx && v.quote_span) { start = v.quote_span[0]; end = v.quote_span[1]; }
  else if (v && v.quote) { start = ctx.text.indexOf(v.quote); end = start < 0 ? -1 : start + v.quote.length; }
  // Show a window around the quote so long chunks stay readable.
  var text = ctx.text, from = 0, to = text.length;
  if (start >= 0) { from = Math.max(0, start - 120); to = Math.min(text.length, end + 120); }
  else to = Math.min(text.length, 280);
  var node = markedText(text.slice(from, to), start >= 0 ? start - from : null, end - from, "q-" + item.row.label);
  node.classList.add("snippet");
  if (from > 0) node.insertBefore(document.createTextNode("\u2026"), node.firstChild);
  if (to < text.length) node.appendChild(document.createTextNode("\u2026"));
  return el("div", null, [el("div", { "class": "small muted", text: "rank " + ctx.rank + (ctx.id !== null ? " \u00B7 " + ctx.id : "") +
    (v && v.context_index === item.ctx ? " \u00B7 cited" : " \u00B7 top-ranked") }), node]);
}

function reviewHeading(root) { root.appendChild(el("h2", { text: "Hallucination review" })); }
// The table's redraw after the decisions changed (decisions.js runs the "review-changed" hooks); null until drawn.
var refreshReviewTable = null;
function reviewTab(root) {
  if (!hasJudge()) {
    root.appendChild(el("p", { "class": "notice", id: "review-empty", text: "No judge verdicts in this report. Run with --metrics faithfulness to review claims." }));
    return;
  }
  var all = flaggedClaims();
  if (D.coverage.hallucinated_detailed < D.coverage.hallucinated) {
    root.appendChild(el("p", { "class": "notice", id: "review-coverage", text: "Claims of " + fmtInt(D.coverage.hallucinated_detailed) + " of the " +
      fmtInt(D.coverage.hallucinated) + " samples with contradicted or unverifiable claims (report limited to " + fmtInt(D.coverage.max_detailed) +
      " detailed samples); the rest are in results.jsonl, or embed them with genevals report --max-samples N." }));
  }
  var names = D.metrics.map(function (m) { return m.name; });
  // The filters start from the address (links.js) and are written back to it.
  var link = linkParams(), linkedMetric = link.get("metric");
  var state = { system: systemIndex(link.get("rsys")), verdict: VERDICTS.indexOf(link.get("verdict")) > 0 ? link.get("verdict") : "",
    metric: METRIC[linkedMetric] ? linkedMetric : names.indexOf("faithfulness") >= 0 ? "faithfulness" : names[0],
    min: linkNumber(link, "min"), max: linkNumber(link, "max"), text: link.get("q") || "",
    review: ["todo", "done"].indexOf(link.get("review")) >= 0 ? link.get("review") : "" };
  var view = all;
  var body = el("tbody"), count = el("span", { "class": "count", id: "review-count" });
  function apply() {
    var text = state.text.toLowerCase();
    view = all.filter(function (item) {
      var s = D.samples[item.sample];
      if (state.system !== "" && String(s.sys) !== state.system) return false;
      if (state.verdict && item.row.label !== state.verdict) return false;
      if (text && (item.row.claim.text + "\n" + s.a + "\n" + s.id).toLowerCase().indexOf(text) < 0) return false;
      if (state.review && claimReviewed(s, item.row.claim.index) !== (state.review === "done")) return false;
      if (state.metric && (state.min !== null || state.max !== null)) {
        var v = metricValue(s, state.metric);
        if (v === null || (state.min !== null && v < state.min) || (state.max !== null && v > state.max)) return false;
      }
      return true;
    });
    count.textContent = view.length + " of " + all.length + " flagged claims";
    updateLink({ rsys: state.system === "" ? null : sysLabel(Number(state.system)), verdict: state.verdict, metric: state.metric,
      min: state.min, max: state.max, q: state.text, review: state.review });
    pager.update(view.length);
  }
  function draw(page) {
    clear(body);
    view.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).forEach(function (item) {
      var s = D.samples[item.sample], v = item.row.verdict;
      body.appendChild(el("tr", { "class": "clickable", onclick: function () { openSample(item.sample, item.k); } }, [
        el("td", null, [el("div", { text: sysLabel(s.sys) }), el("div", { "class": "mono small muted", text: s.id })]),
        el("td", null, [verdictChip(item.row.label), v && v.rep ? repeatsBeside(v) : null]),
        el("td", null, el("div", { dir: "auto", "class": "claim-cell", text: item.row.claim.text })),
        el("td", null, el("div", { dir: "auto", "class": "small", text: v ? (v.reason || (v.missing ? "no verdict returned" : "")) : "no verdict returned" })),
        el("td", null, contextSnippet(s, item)),
        el("td", { "class": "num", text: fmtValue(metricValue(s, state.metric), state.metric) }),
        el("td", null, el("div", { dir: "auto", "class": "clip-2 small", text: s.a }))
      ].concat(REVIEW ? [el("td", { "class": "review-cell" }, reviewCell(s, item.row.claim.index))] : [])));
    });
  }
  function exportCSV() {
    var header = ["system", "sample_id", "question", "answer", "claim", "verdict", "reason", "quote", "context_rank", "context_id", "context_text", state.metric];
    var rows = view.map(function (item) {
      var s = D.samples[item.sample], v = item.row.verdict || {}, c = item.ctx === null ? null : s.ctx[item.ctx];
      return [sysLabel(s.sys), s.id, s.q, s.a, item.row.claim.text, item.row.label, v.reason || "", v.quote || "",
        c ? c.rank : "", c && c.id !== null ? c.id : "", c ? c.text : "", metricValue(s, state.metric)];
    });
    download("genevals-hallucinations.csv", toCSV(header, rows), "text/csv;charset=utf-8");
  }
  var search = el("input", { type: "search", placeholder: "claim, answer or id", id: "review-search", value: state.text });
  search.addEventListener("input", function () { state.text = search.value; apply(); });
  var metricHead = el("th", { "class": "num", text: state.metric });
  var card = el("div", { "class": "card" }, [
    el("div", { "class": "toolbar", id: "review-filters" }, [
      el("label", null, ["Search", search]),
      selectBox(systemOptions(), state.system, function (v) { state.system = v; apply(); }, "System"),
      selectBox([["", "Contradicted + unverifiable"], ["contradicted", "Contradicted"], ["unverifiable", "Unverifiable"]], state.verdict, function (v) { state.verdict = v; apply(); }, "Verdict"),
      selectBox(metricOptions(false), state.metric, function (v) { state.metric = v; metricHead.textContent = v; apply(); }, "Metric"),
      numberInput(state.min, function (v) { state.min = v; apply(); }, "min"),
      numberInput(state.max, function (v) { state.max = v; apply(); }, "max"),
      REVIEW ? selectBox([["", "Any"], ["todo", "Not reviewed"], ["done", "Reviewed"]], state.review, function (v) { state.review = v; apply(); }, "Review") : null,
      el("button", { type: "button", "class": "btn btn-primary", id: "export-csv", text: "Export CSV", onclick: exportCSV }),
      count
    ]),
    el("div", { "class": "table-wrap" }, el("table", { id: "review-table" }, [
      el("thead", null, el("tr", null, [el("th", { text: "System / sample" }), el("th", { text: "Verdict" }), el("th", { text: "Claim" }),
        el("th", { text: "Reason" }), el("th", { text: "Nearest context" }), metricHead, el("th", { text: "Answer" })]
        .concat(REVIEW ? [el("th", { text: "Review" })] : []))), body]))
  ]);
  root.appendChild(card);
  var pager = makePager(card, PAGE_SIZE, draw);
  refreshReviewTable = function () { if (state.review) apply(); else pager.update(view.length, true); };
  apply();
}
registerTab({ id: "review", title: "Hallucination review", order: 60, render: reviewTab });
registerTabSection("review", { id: "review-heading", order: -20, render: reviewHeading });
registerHook("review-changed", { id: "review-table", run: function () { if (refreshReviewTable) refreshReviewTable(); } });
