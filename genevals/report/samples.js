// samples.js: the filterable, sortable, paginated samples table and the per-sample drill-down.

var PAGE_SIZE = 50;
// Answers longer than this are built in blocks of about TEXT_CHUNK characters, which the stylesheet lets the
// browser lay out only when on screen (content-visibility), so a 300,000-character answer opens at once.
var LONG_TEXT = 20000, TEXT_CHUNK = 4000;

// The answer with each located claim highlighted by its verdict; overlapping claims show the worst verdict.
function answerWithClaims(sample, rows, onClaim) {
  var text = sample.a, cuts = [0, text.length], covering = [];
  rows.forEach(function (r, k) {
    r.claim.spans.forEach(function (sp) { cuts.push(sp[0], sp[1]); covering.push([sp[0], sp[1], k]); });
  });
  cuts.sort(function (a, b) { return a - b; });
  cuts = cuts.filter(function (c, i, a) { return i === 0 || a[i - 1] !== c; });
  // Spans by start; a sweep keeps those open over each piece, so thousands of claims cost n log n, not n^2.
  covering.sort(function (a, b) { return a[0] - b[0]; });
  var open = [], next = 0;
  var worst = { contradicted: 3, unverifiable: 2, supported: 1, from_history: 0.5 };
  var node = el("div", { dir: "auto", "class": "text-block answer" }), into = node, chunked = text.length > LONG_TEXT, filled = 0;
  for (var i = 0; i + 1 < cuts.length; i++) {
    if (chunked && (into === node || filled >= TEXT_CHUNK)) { into = node.appendChild(el("div", { "class": "text-chunk" })); filled = 0; }
    filled += cuts[i + 1] - cuts[i];
    var s = cuts[i], e = cuts[i + 1], best = -1;
    while (next < covering.length && covering[next][0] <= s) open.push(covering[next++]);
    open = open.filter(function (c) { return c[1] > s; });
    open.forEach(function (c) { if (c[0] <= s && e <= c[1] && (best < 0 || worst[rows[c[2]].label] > worst[rows[best].label] || (worst[rows[c[2]].label] === worst[rows[best].label] && c[2] < best))) best = c[2]; });
    var piece = text.slice(s, e);
    if (best < 0) { into.appendChild(document.createTextNode(piece)); continue; }
    (function (k) {
      var span = el("span", { "class": "claim v-" + rows[k].label, "data-claim": String(k), tabindex: "0", title: rows[k].label, text: piece });
      span.addEventListener("click", function () { onClaim(k); });
      span.addEventListener("keydown", function (ev) { if (ev.key === "Enter") onClaim(k); });
      into.appendChild(span);
    })(best);
  }
  return node;
}

function contextBlock(sample, ctx, i) {
  var grade = relevanceGrade(sample, ctx);
  return el("div", { "class": "ctx", id: "ctx-" + i, "data-context": String(i) }, [
    el("div", { "class": "ctx-head" }, [
      el("strong", { text: "rank " + ctx.rank }),
      ctx.id !== null ? el("span", { text: "id " + ctx.id }) : null,
      ctx.doc_id !== null ? el("span", { text: "doc " + ctx.doc_id }) : null,
      ctx.score !== null ? el("span", { text: "score " + fmt(ctx.score) }) : null,
      el("span", { "class": "grade", text: grade === null ? "no relevance labels" : "relevance grade " + grade })
    ]),
    el("div", { dir: "auto", "class": "text-block ctx-text", text: ctx.text })
  ]);
}

function showEvidence(sample, rows, k, evidence, ctxHolder) {
  var r = rows[k], v = r.verdict;
  Array.prototype.forEach.call(drawerBody.querySelectorAll("[data-claim]"), function (n) {
    n.classList.toggle("active", n.getAttribute("data-claim") === String(k));
  });
  // Only the context cited before carries a mark: restore just that one (rebuilding every long context's text
  // made the browser lay them all out again).
  Array.prototype.forEach.call(ctxHolder.querySelectorAll(".ctx.cited"), function (n) {
    n.classList.remove("cited");
    var i = Number(n.getAttribute("data-context"));
    n.replaceChild(el("div", { dir: "auto", "class": "text-block ctx-text", text: sample.ctx[i].text }), n.querySelector(".ctx-text"));
  });
  clear(evidence);
  append(evidence, [el("h3", null, ["Evidence for claim ", String(r.claim.index + 1), " ", verdictChip(r.label)]),
    el("p", { dir: "auto", "class": "claim-text", text: r.claim.text }),
    r.claim.located ? null : el("p", { "class": "warning small", text: "This claim could not be located in the answer text." })]);
  if (!v) { evidence.appendChild(el("p", { "class": "empty", text: "No verdict came back for this claim; it counts as unverifiable." })); return; }
  if (v.missing) evidence.appendChild(el("p", { "class": "small muted", text: "The judge returned no verdict for this claim; it counts as unverifiable." }));
  if (v.reason) evidence.appendChild(el("p", null, [el("strong", { text: "Reason: " }), el("span", { dir: "auto", "class": "reason-text", text: v.reason })]));
  if (v.quote) evidence.appendChild(el("p", null, [el("strong", { text: "Quote: " }), el("q", { dir: "auto", text: v.quote })]));
  if (v.context_index === null) { evidence.appendChild(el("p", { "class": "empty", text: "The verdict cites no context." })); return; }
  var ctx = sample.ctx[v.context_index], node = ctxHolder.querySelector("#ctx-" + v.context_index);
  if (!ctx || !node) return;
  var start = v.quote_span ? v.quote_span[0] : -1, end = v.quote_span ? v.quote_span[1] : -1;
  if (start < 0 && v.quote) { start = ctx.text.indexOf(v.quote); end = start < 0 ? -1 : start + v.quote.length; }
  var grade = relevanceGrade(sample, ctx);
  evidence.appendChild(el("p", { "class": "small muted", text: "Cited context: rank " + ctx.rank + (ctx.id !== null ? ", id " + ctx.id : "") +
    ", relevance grade " + (grade === null ? "(no labels)" : grade) + (start < 0 && v.quote ? " \u2014 the quote was not found in this context" : "") }));
  node.replaceChild(markedText(ctx.text, start, end, "q-" + r.label), node.querySelector(".ctx-text"));
  node.querySelector(".text-block").classList.add("ctx-text");
  node.classList.add("cited");
  if (node.scrollIntoView) node.scrollIntoView({ block: "nearest" });
}

// Claims the judge returned that are not in the answer: a judge-quality warning, with the judge's replies.
function inventedCard(sample) {
  var j = sample.j;
  if (!j || !j.inv || !j.inv.length) return null;
  return el("div", { "class": "card notice warning", id: "invented-claims" }, [
    el("h3", { text: "Judge quality: " + j.inv.length + " claim(s) not in the answer (not counted)" }),
    el("ul", null, j.inv.map(function (c) { return el("li", null, [el("span", { dir: "auto", text: c.text }), " ", chip(c.note, "status")]); })),
    el("details", null, [el("summary", { text: "Judge transcript" })].concat((j.tr || []).map(function (t) {
      return el("div", null, [el("strong", { text: t.stage }), el("pre", { dir: "auto", "class": "text-block small", text: t.reply })]); })))]);
}

// Open a sample in the drawer, then run the registered "sample-opened" hooks (links.js writes the address,
// decisions.js adds the review card).
function openSample(index, claimIndex) {
  drawSample(index, claimIndex);
  runHooks("sample-opened", index, claimIndex);
}

// The drawer of one sample: its texts, claims, evidence and metrics, then the registered sample sections.
function drawSample(index, claimIndex) {
  var sample = D.samples[index], rows = claimRows(sample);
  var evidence = el("div", { "class": "card evidence", id: "evidence" }, el("p", { "class": "muted", text: rows.length ? "Click a claim to see its evidence." : "No judge claims for this sample." }));
  var ctxHolder = el("div", { id: "contexts" });
  sample.ctx.forEach(function (c, i) { ctxHolder.appendChild(contextBlock(sample, c, i)); });
  function onClaim(k) { showEvidence(sample, rows, k, evidence, ctxHolder); }
  var list = el("ul", { "class": "claim-list" }, rows.map(function (r, k) {
    return el("li", { "data-claim": String(k), onclick: function () { onClaim(k); } }, [verdictChip(r.label),
      el("span", { dir: "auto", text: r.claim.text }), r.claim.located ? null : chip("not located", "status")]);
  }));
  var metricsBody = el("tbody");
  D.metrics.forEach(function (m) {
    var st = metricStatus(sample, m.name);
    if (st === null) return;
    var reason = st !== "ok" && sample.st[m.name] ? sample.st[m.name][1] : "";
    metricsBody.appendChild(el("tr", null, [el("td", { "class": "mono", text: m.name }), el("td", { "class": "num", text: fmtValue(metricValue(sample, m.name), m.name, 4) }),
      el("td", null, st === "ok" ? el("span", { "class": "muted", text: "ok" }) : chip(st, "status")), el("td", { "class": "reason", text: reason })]));
  });
  var metricsCard = el("div", { "class": "card" }, [el("h3", { text: "Metrics" }), el("table", { id: "sample-metrics" }, [
    el("thead", null, el("tr", null, [el("th", { text: "Metric" }), el("th", { "class": "num", text: "Value" }), el("th", { text: "Status" }), el("th", { text: "Reason" })])),
    metricsBody])]);
  if (sample.x) {
    var c = sampleVerdicts(sample);
    openDrawer(sysLabel(sample.sys) + " \u00B7 " + sample.id, [
      el("div", { "class": "notice", id: "trimmed-note" }, [
        el("strong", { text: "Text not embedded" }),
        " (report limited to " + fmtInt(D.coverage.max_detailed) + " detailed samples); see " + resultsLine(sample) + "."]),
      c ? el("div", { "class": "card" }, [el("h3", { text: "Judge claims" }), el("p", null, [chip(String(c.supported), "v-supported", "supported"), " supported, ",
        chip(String(c.contradicted), "v-contradicted", "contradicted"), " contradicted, ", chip(String(c.unverifiable), "v-unverifiable", "unverifiable"), " unverifiable"])]) : null,
      metricsCard
    ]);
    return;
  }
  openDrawer(sysLabel(sample.sys) + " \u00B7 " + sample.id, [
    el("div", { "class": "card" }, [el("h3", { text: "Question" }), el("div", { dir: "auto", "class": "text-block question", text: sample.q || "(none)" }),
      sample.origin ? el("div", { "class": "small muted", text: "input " + sample.origin }) : null]),
    el("div", { "class": "card" }, [el("h3", { text: "Answer" }), answerWithClaims(sample, rows, onClaim),
      rows.length ? el("div", { "class": "legend", style: { marginTop: "8px" } }, VERDICTS.concat(rows.some(function (r) { return r.label === "from_history"; }) ? ["from_history"] : []).map(function (v) {
        return el("span", null, [el("span", { "class": "swatch", style: { background: VERDICT_COLORS[v] } }), v]); })) : null,
      rows.length ? el("h4", { text: "Claims" }) : null, rows.length ? list : null]),
    inventedCard(sample),
    evidence,
    el("div", { "class": "card" }, [el("h3", { text: "Retrieved contexts (" + sample.ctx.length + ")" }),
      sample.ctx.length ? ctxHolder : el("p", { "class": "empty", text: "No contexts." })]),
    el("div", { "class": "card" }, [el("h3", { text: "References" }), sample.refs.length ?
      el("ol", null, sample.refs.map(function (r) { return el("li", { dir: "auto", "class": "text-block", text: r }); })) : el("p", { "class": "empty", text: "No references." })]),
    metricsCard
  ].concat(sampleSections(sample, index)));
  if (claimIndex !== undefined && claimIndex !== null && rows[claimIndex]) onClaim(claimIndex);
}

function samplesTab(root) {
  var cols = keyMetrics(5), judge = hasJudge();
  var state = { text: "", system: "", verdict: "", metric: cols[0] || "", min: null, max: null, sort: null, dir: 1 };
  var rows = D.samples.map(function (s, i) { return i; });
  var view = rows.slice();
  var body = el("tbody"), count = el("span", { "class": "count", id: "samples-count" });
  var counts = D.samples.map(sampleVerdicts);
  function keyOf(col) {
    if (col === "id") return function (i) { return D.samples[i].id; };
    if (col === "system") return function (i) { return sysLabel(D.samples[i].sys); };
    if (col === "claims") return function (i) { return counts[i] ? counts[i].contradicted * 1000 + counts[i].unverifiable : null; };
    return function (i) { return metricValue(D.samples[i], col); };
  }
  function apply() {
    var text = state.text.toLowerCase();
    view = rows.filter(function (i) {
      var s = D.samples[i];
      if (state.system !== "" && String(s.sys) !== state.system) return false;
      if (text && (s.id + "\n" + s.q + "\n" + s.a).toLowerCase().indexOf(text) < 0) return false;
      if (state.verdict) {
        var c = counts[i];
        if (state.verdict === "none") { if (c) return false; }
        else if (state.verdict === "unstable") { if (!unstableClaims(s)) return false; }
        else if (state.verdict === "split") { if (!splitClaims(s)) return false; }
        else if (!c || (state.verdict === "flagged" ? c.contradicted + c.unverifiable === 0 : c[state.verdict] === 0)) return false;
      }
      if (state.metric && (state.min !== null || state.max !== null)) {
        var v = metricValue(s, state.metric);
        if (v === null || (state.min !== null && v < state.min) || (state.max !== null && v > state.max)) return false;
      }
      return true;
    });
    if (state.sort) sortRows(view, keyOf(state.sort), state.dir);
    count.textContent = view.length + " of " + rows.length + " samples";
    pager.update(view.length);
  }
  function draw(page) {
    clear(body);
    view.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).forEach(function (i) {
      var s = D.samples[i], c = counts[i];
      body.appendChild(el("tr", { "class": "clickable", "data-index": String(i), onclick: function () { openSample(i); } }, [
        el("td", { "class": "mono", text: s.id }), el("td", { text: sysLabel(s.sys) }),
        el("td", null, el("div", { dir: "auto", "class": "clip-2", text: s.q })), el("td", null, el("div", { dir: "auto", "class": "clip-2", text: s.a }))
      ].concat(cols.map(function (m) {
        var st = metricStatus(s, m);
        return el("td", { "class": "num", title: st && st !== "ok" ? st : null, text: st && st !== "ok" ? st : fmtValue(metricValue(s, m), m) });
      })).concat(judge ? [el("td", null, c ? [chip(String(c.supported), "v-supported", "supported"), " ",
        chip(String(c.contradicted), "v-contradicted", "contradicted"), " ", chip(String(c.unverifiable), "v-unverifiable", "unverifiable")] : "\u2013")] : [])));
    });
  }
  var headers = [["id", "ID"], ["system", "System"], [null, "Question"], [null, "Answer"]]
    .concat(cols.map(function (m) { return [m, m]; })).concat(judge ? [["claims", "Claims S / C / U"]] : []);
  var headRow = el("tr", null, headers.map(function (h, n) {
    if (!h[0]) return el("th", { text: h[1] });
    var th = el("th", { "class": "sortable" + (n >= 4 && h[0] !== "claims" ? " num" : ""), "data-sort": h[0], text: h[1] });
    th.addEventListener("click", function () {
      state.dir = state.sort === h[0] ? -state.dir : (n >= 4 ? -1 : 1);
      state.sort = h[0];
      Array.prototype.forEach.call(headRow.children, function (x) { x.classList.remove("sorted-asc", "sorted-desc"); });
      th.classList.add(state.dir > 0 ? "sorted-asc" : "sorted-desc");
      apply();
    });
    return th;
  }));
  var search = el("input", { type: "search", placeholder: "id, question or answer", id: "samples-search" });
  search.addEventListener("input", function () { state.text = search.value; apply(); });
  var toolbar = el("div", { "class": "toolbar", id: "samples-filters" }, [
    el("label", null, ["Search", search]),
    selectBox(systemOptions(), "", function (v) { state.system = v; apply(); }, "System"),
    judge ? selectBox([["", "Any"], ["flagged", "Has contradicted or unverifiable"], ["contradicted", "Has contradicted"],
      ["unverifiable", "Has unverifiable"], ["supported", "Has supported"], ["none", "No judge claims"]]
      .concat(hasRepeats() ? [["unstable", "Has unstable claims (judge repeats disagree)"]] : [])
      .concat(hasJury() ? [["split", "Has split claims (the jury's judges disagree)"]] : []), "", function (v) { state.verdict = v; apply(); }, "Verdicts") : null,
    selectBox(metricOptions(false), state.metric, function (v) { state.metric = v; apply(); }, "Metric"),
    numberInput(null, function (v) { state.min = v; apply(); }, "min"),
    numberInput(null, function (v) { state.max = v; apply(); }, "max"),
    count
  ]);
  var card = el("div", { "class": "card" }, [toolbar,
    el("div", { "class": "table-wrap" }, el("table", { id: "samples-table" }, [el("thead", null, headRow), body]))]);
  root.appendChild(el("h2", { text: "Samples" }));
  if (textsTrimmed() || rowsTrimmed()) {
    root.appendChild(el("p", { "class": "small muted", id: "samples-coverage", text: "Texts of " + fmtInt(D.coverage.detailed) +
      " of " + fmtInt(D.coverage.total) + " samples are embedded" + (rowsTrimmed() ? "; the table lists " + fmtInt(D.coverage.embedded) +
      " of them (the detailed ones, then the rest in file order)" : "") + ". Search finds the question and answer of detailed samples only; " +
      "the others match by id." }));
  }
  root.appendChild(card);
  var pager = makePager(card, PAGE_SIZE, draw);
  apply();
}
registerTab({ id: "samples", title: "Samples", order: 50, render: samplesTab });
