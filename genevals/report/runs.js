// runs.js: "Run vs run", when the report holds two or more runs: each question answered in both the first run
// (A) and the second (B), by system and sample id: the answers side by side, metric deltas (B - A), verdicts that
// changed; sortable by the largest regression, and linkable (#tab=runs&metric=...&sort=...&psys=...&pid=...).
function runPairs() {
  if (D.runs.length < 2) return [];
  var first = {}, pairs = [];
  D.samples.forEach(function (s, i) {
    var sys = D.systems[s.sys];
    if (sys && sys.run === 0) first[sys.system + "\u0000" + s.id] = i;
  });
  D.samples.forEach(function (s, i) {
    var sys = D.systems[s.sys];
    if (!sys || sys.run !== 1) return;
    var a = first[sys.system + "\u0000" + s.id];
    if (a !== undefined) pairs.push({ a: a, b: i, system: sys.system, id: s.id });
  });
  return pairs;
}
// How much worse B is than A on metric (positive: a regression), from the metric's declared direction.
function regression(pair, metric) {
  var a = metricValue(D.samples[pair.a], metric), b = metricValue(D.samples[pair.b], metric);
  if (a === null || b === null) return null;
  return METRIC[metric] && METRIC[metric].lower_better ? b - a : a - b;
}
// Claims matched by text: [{text, a, b}] with each side's verdict label (null: not claimed there), changed only.
function changedVerdicts(pair) {
  var out = [], byText = {};
  claimRows(D.samples[pair.a]).forEach(function (r) { byText[r.claim.text] = { text: r.claim.text, a: r.label, b: null }; });
  claimRows(D.samples[pair.b]).forEach(function (r) {
    if (byText[r.claim.text]) byText[r.claim.text].b = r.label; else byText[r.claim.text] = { text: r.claim.text, a: null, b: r.label };
  });
  Object.keys(byText).forEach(function (t) { if (byText[t].a !== byText[t].b) out.push(byText[t]); });
  return out;
}
function verdictSummary(sample) {
  var c = sampleVerdicts(sample);
  return c ? c.supported + " / " + c.contradicted + " / " + c.unverifiable : "\u2013";
}
function deltaCell(pair, metric) {
  var r = regression(pair, metric), a = metricValue(D.samples[pair.a], metric), b = metricValue(D.samples[pair.b], metric);
  if (r === null) return el("td", { "class": "num", text: "\u2013" });
  return el("td", { "class": "num " + (r > 1e-12 ? "delta-worse" : r < -1e-12 ? "delta-better" : ""), "data-delta": String(b - a),
    text: (b - a > 0 ? "+" : "") + fmt(b - a) });
}

function openPair(pair) {
  var A = D.samples[pair.a], B = D.samples[pair.b], changed = changedVerdicts(pair);
  function side(sample, run) {
    return el("div", { "class": "card" }, [el("h3", { text: D.runs[run].name }),
      sample.x ? el("p", { "class": "notice", text: "Text not embedded; see " + resultsLine(sample) + "." }) : answerWithClaims(sample, claimRows(sample), function () {}),
      el("p", { "class": "small muted", text: "claims S / C / U: " + verdictSummary(sample) })]);
  }
  var body = el("tbody");
  D.metrics.forEach(function (m) {
    var a = metricValue(A, m.name), b = metricValue(B, m.name);
    if (a === null && b === null) return;
    body.appendChild(el("tr", null, [el("td", { "class": "mono", text: m.name }), el("td", { "class": "num", text: fmt(a, 4) }),
      el("td", { "class": "num", text: fmt(b, 4) }), deltaCell(pair, m.name)]));
  });
  openDrawer(pair.system + " \u00B7 " + pair.id + " \u00B7 " + D.runs[0].name + " vs " + D.runs[1].name, [
    el("div", { "class": "card" }, [el("h3", { text: "Question" }), el("div", { dir: "auto", "class": "text-block question", text: A.q || B.q || "(not embedded)" })]),
    el("div", { "class": "side-by-side", id: "pair-answers" }, [side(A, 0), side(B, 1)]),
    el("div", { "class": "card", id: "pair-verdicts" }, [el("h3", { text: "Verdicts that changed (" + changed.length + ")" }),
      changed.length ? el("ul", null, changed.map(function (c) {
        return el("li", null, [c.a ? verdictChip(c.a) : chip("not claimed", "status"), " \u2192 ", c.b ? verdictChip(c.b) : chip("not claimed", "status"), " ", el("span", { text: c.text })]);
      })) : el("p", { "class": "empty", text: "No claim changed its verdict." })]),
    el("div", { "class": "card" }, [el("h3", { text: "Metrics" }), el("table", { id: "pair-metrics" }, [el("thead", null, el("tr", null, [
      el("th", { text: "Metric" }), el("th", { "class": "num", text: D.runs[0].name }), el("th", { "class": "num", text: D.runs[1].name }),
      el("th", { "class": "num", text: "\u0394 (B \u2212 A)" })])), body])])
  ]);
  updateLink({ psys: pair.system, pid: pair.id, sys: null, id: null, claim: null });
}

function runsTab(root) {
  var pairs = runPairs(), link = linkParams(), names = D.metrics.map(function (m) { return m.name; });
  root.appendChild(el("h2", { text: "Run vs run: " + D.runs[0].name + " (A) \u2192 " + D.runs[1].name + " (B)" }));
  if (D.runs.length > 2) root.appendChild(el("p", { "class": "small muted", text: "The first two runs of this report are paired; build a report of two runs to pair others." }));
  if (!pairs.length) { root.appendChild(el("p", { "class": "notice", id: "runs-empty", text: "No question appears in both runs (paired by system and sample id)." })); return; }
  var state = { metric: METRIC[link.get("metric")] ? link.get("metric") : names.indexOf("faithfulness") >= 0 ? "faithfulness" : keyMetrics(1)[0] || "",
    sort: ["regression", "improvement", "id"].indexOf(link.get("sort")) >= 0 ? link.get("sort") : "regression",
    changed: link.get("changed") === "1", text: link.get("q") || "" };
  var cols = [state.metric].concat(keyMetrics(4).filter(function (m) { return m !== state.metric; })).slice(0, 4);
  var view = pairs, body = el("tbody"), count = el("span", { "class": "count", id: "runs-count" });
  function apply() {
    var text = state.text.toLowerCase();
    view = pairs.filter(function (p) {
      if (state.changed && !changedVerdicts(p).length) return false;
      var A = D.samples[p.a], B = D.samples[p.b];
      return !text || (p.id + "\n" + A.q + "\n" + A.a + "\n" + B.a).toLowerCase().indexOf(text) >= 0;
    });
    if (state.sort === "id") sortRows(view, function (p) { return p.system + "\u0000" + p.id; }, 1);
    else sortRows(view, function (p) { return regression(p, state.metric); }, state.sort === "regression" ? -1 : 1);
    count.textContent = view.length + " of " + plural(pairs.length, "paired question");
    updateLink({ metric: state.metric, sort: state.sort, changed: state.changed ? "1" : null, q: state.text });
    pager.update(view.length);
  }
  function draw(page) {
    clear(body);
    view.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).forEach(function (p) {
      var A = D.samples[p.a], B = D.samples[p.b], n = changedVerdicts(p).length;
      body.appendChild(el("tr", { "class": "clickable", "data-pair": p.system + "/" + p.id, onclick: function () { openPair(p); } }, [
        el("td", null, [el("div", { text: p.system }), el("div", { "class": "mono small muted", text: p.id })]),
        el("td", null, el("div", { dir: "auto", "class": "clip-2", text: A.x ? "(not embedded)" : A.a })),
        el("td", null, el("div", { dir: "auto", "class": "clip-2", text: B.x ? "(not embedded)" : B.a }))
      ].concat(cols.map(function (m) { return deltaCell(p, m); })).concat([
        el("td", { text: verdictSummary(A) + " \u2192 " + verdictSummary(B) }),
        el("td", { "class": "num", text: n ? String(n) : "" })])));
    });
  }
  var search = el("input", { type: "search", id: "runs-search", placeholder: "id, question or answer", value: state.text });
  search.addEventListener("input", function () { state.text = search.value; apply(); });
  var changedBox = el("input", { type: "checkbox", id: "runs-changed" });
  changedBox.checked = state.changed;
  changedBox.addEventListener("change", function () { state.changed = changedBox.checked; apply(); });
  var card = el("div", { "class": "card" }, [
    el("div", { "class": "toolbar", id: "runs-filters" }, [el("label", null, ["Search", search]),
      selectBox(metricOptions(false), state.metric, function (v) { state.metric = v; apply(); }, "Sort metric"),
      selectBox([["regression", "Largest regression first"], ["improvement", "Largest improvement first"], ["id", "System and id"]], state.sort,
        function (v) { state.sort = v; apply(); }, "Order"),
      el("label", null, [changedBox, " only changed verdicts"]), count]),
    el("div", { "class": "table-wrap" }, el("table", { id: "runs-table" }, [el("thead", null, el("tr", null, [
      el("th", { text: "System / id" }), el("th", { text: "Answer A" }), el("th", { text: "Answer B" })]
      .concat(cols.map(function (m) { return el("th", { "class": "num", text: "\u0394 " + m }); }))
      .concat([el("th", { text: "Claims S / C / U" }), el("th", { "class": "num", text: "Changed" })]))), body]))]);
  root.appendChild(card);
  var pager = makePager(card, PAGE_SIZE, draw);
  apply();
  if (link.has("pid")) {
    var found = pairs.filter(function (p) { return p.system === link.get("psys") && p.id === link.get("pid"); })[0];
    if (found) openPair(found);
    else linkNotice("The linked question (" + link.get("psys") + " \u00B7 " + link.get("pid") + ") is not in both runs.");
  }
}

// The tab exists only for reports of two or more runs.
registerTab({ id: "runs", title: "Run vs run", order: 40, render: runsTab, when: function () { return D.runs.length >= 2; } });
