// rag.js: the RAG judges in the report (answer/context relevance, context recall, answer correctness, pairwise):
// a drill-down card in the sample drawer, a variants card on the overview, win/tie/loss in the compare tab, and
// relevance by rank in the charts, each registered as a section of the drawer or of its tab.

var RAG_FAMILIES = ["answer_relevance", "context_relevance", "context_recall", "answer_correctness", "pairwise"];
var RAG_COLORS = { win: "#2da44e", tie: "#8c959f", loss: "#c4262e" };

function ragChip(ok, yes, no) { return chip(ok ? yes : no, ok ? "v-supported" : "v-contradicted"); }

// A text with several spans marked (spans are [start, end) in UTF-16 offsets, as the builder wrote them).
function markedSpans(text, spans, cls) {
  var node = el("div", { dir: "auto", "class": "text-block" }), at = 0;
  spans.slice().sort(function (a, b) { return a[0] - b[0]; }).forEach(function (sp) {
    if (sp[0] < at) return;
    node.appendChild(document.createTextNode(text.slice(at, sp[0])));
    node.appendChild(el("mark", { "class": cls, text: text.slice(sp[0], sp[1]) }));
    at = sp[1];
  });
  node.appendChild(document.createTextNode(text.slice(at)));
  return node;
}

function factList(facts, yes, no, ctxOf) {
  return el("ul", { "class": "claim-list" }, facts.map(function (f) {
    return el("li", null, [f.loc ? ragChip(f.ok, yes, no) : chip("not located", "status"), el("span", { dir: "auto", text: " " + f.t }),
      f.c !== undefined && ctxOf ? el("span", { "class": "small muted", text: " \u2014 " + ctxOf(f.c) }) : null]);
  }));
}

function ragCard(sample) {
  var r = sample.rag, parts = [el("h3", { text: "RAG judges" })];
  if (r.ar) {
    parts.push(el("h4", { text: "Answer relevance" }));
    if (r.ar.parts.length) parts.push(el("ul", { "class": "claim-list", id: "rag-parts" }, r.ar.parts.map(function (p) {
      return el("li", null, [ragChip(p.ok, "answered", "unanswered"), el("span", { dir: "auto", text: " " + p.t })]); })));
    var offSpans = [];
    r.ar.off.forEach(function (o) { offSpans = offSpans.concat(o.s); });
    parts.push(el("p", { "class": "small muted", text: r.ar.off.length ? "Off-topic excerpts marked in the answer:" : "Nothing off-topic." }));
    if (offSpans.length) parts.push(markedSpans(sample.a, offSpans, "q-contradicted"));
    r.ar.off.filter(function (o) { return !o.s.length; }).forEach(function (o) {
      parts.push(el("p", { "class": "small warning", text: "Off-topic excerpt not found in the answer: " + o.t }));
    });
    if (r.ar.why) parts.push(el("p", null, [el("strong", { text: "Reason: " }), el("span", { dir: "auto", text: r.ar.why })]));
  }
  if (r.cr) {
    parts.push(el("h4", { text: "Context relevance: " + r.cr.filter(function (c) { return c.r; }).length + " of " + r.cr.length + " chunks relevant" }));
    parts.push(el("div", { id: "rag-chunks" }, r.cr.map(function (c) {
      var ctx = sample.ctx[c.i];
      return el("div", { "class": "ctx" + (c.r ? " cited" : ""), "data-relevant": c.r ? "true" : "false" }, [
        el("div", { "class": "ctx-head" }, [el("strong", { text: "rank " + ctx.rank }), ctx.id !== null ? el("span", { text: "id " + ctx.id }) : null,
          c.v ? chip(c.v, c.r ? "v-supported" : "v-unverifiable") : chip("no verdict", "status"),
          c.sim !== undefined ? el("span", { "class": "small muted", text: "similarity " + fmt(c.sim, 2) }) : null,
          el("span", { "class": "grade", text: relevanceGrade(sample, ctx) === null ? "no labels" : "label " + relevanceGrade(sample, ctx) })]),
        c.s ? markedText(ctx.text, c.s[0], c.s[1], "q-supported") : el("div", { dir: "auto", "class": "text-block ctx-text", text: ctx.text }),
        c.why ? el("p", { dir: "auto", "class": "small muted", text: c.why }) : null]);
    })));
  }
  function rank(i) { var c = sample.ctx[i]; return c ? "found in the chunk at rank " + c.rank : ""; }
  if (r.rc) {
    var missed = r.rc.facts.filter(function (f) { return f.loc && !f.ok; }).length;
    parts.push(el("h4", { text: "Context recall: " + missed + " reference fact(s) missing from the chunks" }));
    parts.push(el("div", { id: "rag-recall" }, factList(r.rc.facts, "found", "missed", rank)));
  }
  if (r.ac) {
    parts.push(el("h4", { text: "Answer correctness" }));
    parts.push(el("p", { "class": "small muted", text: "The answer's facts (TP: in the reference, FP: not):" }));
    parts.push(factList(r.ac.a, "TP", "FP"));
    parts.push(el("p", { "class": "small muted", text: "The reference's facts (found in the answer, or missed: FN):" }));
    parts.push(el("div", { id: "rag-missed" }, factList(r.ac.r, "found", "missed")));
  }
  if (r.pw) {
    parts.push(el("h4", { text: "Pairwise" }));
    r.pw.forEach(function (x) {
      parts.push(el("p", null, [chip(x.out || "?", x.out === "win" ? "v-supported" : x.out === "loss" ? "v-contradicted" : "v-unverifiable"),
        " against " + x.o + (x.agreed ? " (both orders agree)" : " (the two orders disagree: a tie)")]));
      x.orders.forEach(function (o) {
        parts.push(el("p", { "class": "small muted", text: "A = " + o.order[0] + ", B = " + o.order[1] + ": " + o.said + (o.why ? " \u2014 " + o.why : "") }));
      });
    });
  }
  return el("div", { "class": "card", id: "rag-card" }, parts);
}

// Which variant (LLM judge or offline) wrote each RAG metric, from the signatures.
function ragVariants(root) {
  var rows = [];
  D.runs.forEach(function (run) {
    RAG_FAMILIES.forEach(function (f) {
      var sig = run.signatures[f];
      if (!sig) return;
      var m = /\|variant:(\w+)/.exec(sig), model = /\|model:([^|]+)/.exec(sig);
      rows.push(el("tr", null, [el("td", { text: run.name }), el("td", { "class": "mono", text: f }),
        el("td", { text: m ? (m[1] === "llm" ? "LLM judge" : "offline (no LLM)") : "LLM judge" }), el("td", { "class": "mono", text: model ? model[1] : "" })]));
    });
  });
  if (!rows.length) return;
  root.appendChild(el("div", { "class": "card", id: "rag-variants" }, [el("h3", { text: "RAG judges: which variant scored" }),
    el("table", null, [el("thead", null, el("tr", null, ["Run", "Metric", "Variant", "Model"].map(function (h) { return el("th", { text: h }); }))),
      el("tbody", null, rows)])]));
}

// Win / tie / loss per system pair, from the corpus scores pairwise_vs:OTHER:...
function pairwiseRows() {
  var rows = [];
  D.systems.forEach(function (sys) {
    var seen = {};
    Object.keys(sys.corpus || {}).forEach(function (k) {
      var m = /^pairwise_vs:(.*):n$/.exec(k);
      if (!m || seen[m[1]]) return;
      seen[m[1]] = true;
      var g = function (f) { var v = sys.corpus["pairwise_vs:" + m[1] + ":" + f]; return v === undefined ? null : v; };
      rows.push({ sys: sys.label, other: m[1], n: g("n"), win: g("win_rate"), tie: g("tie_rate"), loss: g("loss_rate"),
        net: g("net"), lo: g("net_ci_low"), hi: g("net_ci_high") });
    });
  });
  return rows;
}
function stackedBar(row) {
  var W = 160, H = 12, x = 0, svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, "class": "chart", role: "img", "aria-label": "win tie loss" });
  ["win", "tie", "loss"].forEach(function (k) {
    var w = W * (row[k] || 0);
    var rect = svgEl("rect", { x: x, y: 0, width: w, height: H, fill: RAG_COLORS[k] });
    attachTip(rect, k + " " + fmt(row[k], 3));
    svg.appendChild(rect);
    x += w;
  });
  return svg;
}
// The pairwise table, drawn before the paired comparisons.
function pairwiseSection(root) {
  var rows = pairwiseRows();
  if (rows.length) {
    root.appendChild(el("h2", { text: "Pairwise preference (LLM judge)" }));
    root.appendChild(el("p", { "class": "small muted", text: "Each question answered by both systems was judged twice, the order swapped; " +
      "disagreement between the orders counts as a tie. Net = win rate \u2212 loss rate, with a paired 95% CI (normal approximation over questions)." }));
    root.appendChild(el("div", { "class": "card" }, el("table", { id: "pairwise-table" }, [
      el("thead", null, el("tr", null, ["System", "Against", "Questions", "Win", "Tie", "Loss", "", "Net [95% CI]"].map(function (h, i) {
        return el("th", { "class": i >= 2 && i !== 6 ? "num" : null, text: h }); }))),
      el("tbody", null, rows.map(function (r) {
        return el("tr", null, [el("td", { text: r.sys }), el("td", { text: r.other }), el("td", { "class": "num", text: String(r.n) }),
          el("td", { "class": "num", text: fmt(r.win, 3) }), el("td", { "class": "num", text: fmt(r.tie, 3) }), el("td", { "class": "num", text: fmt(r.loss, 3) }),
          el("td", null, stackedBar(r)),
          el("td", { "class": "num", text: (r.net > 0 ? "+" : "") + fmt(r.net, 3) + (r.lo === null ? " (n < 2: no CI)" : " [" + fmt(r.lo, 3) + ", " + fmt(r.hi, 3) + "]") })]);
      }))])));
    root.appendChild(legend(["win", "tie", "loss"].map(function (k) { return { label: k, color: RAG_COLORS[k] }; })));
  }
}

// Share of chunks judged relevant at each rank, per system (over the samples whose texts the page embeds).
function relevanceByRank(root) {
  var hits = {}, totals = {}, maxRank = 0;
  D.samples.forEach(function (s) {
    if (!s.rag || !s.rag.cr) return;
    s.rag.cr.forEach(function (c) {
      var rank = s.ctx[c.i] ? s.ctx[c.i].rank : c.i + 1, key = s.sys + ":" + rank;
      maxRank = Math.max(maxRank, rank);
      totals[key] = (totals[key] || 0) + 1;
      if (c.r) hits[key] = (hits[key] || 0) + 1;
    });
  });
  if (!maxRank) return;
  var ranks = [];
  for (var k = 1; k <= Math.min(maxRank, 20); k++) ranks.push(k);
  var series = D.systems.map(function (sys, i) {
    return { label: sys.label, color: sysColor(i), values: ranks.map(function (rk) {
      var t = totals[i + ":" + rk]; return t ? Math.round(100 * (hits[i + ":" + rk] || 0) / t) : 0; }) };
  });
  root.appendChild(el("div", { "class": "card", id: "rag-rank-chart" }, [el("h3", { text: "Chunks judged relevant, by rank" }),
    el("p", { "class": "small muted", text: "Percent of the chunks at each rank that context_relevance judged relevant" +
      (textsTrimmed() ? " (over the " + fmtInt(D.coverage.detailed) + " samples whose texts the page embeds)" : "") + "." }),
    vbars({ categories: ranks.map(String), series: series, xLabel: "rank", title: "percent relevant by rank" }), legend(series)]));
}

registerSampleSection({ id: "rag", order: 10, render: ragCard, when: function (sample) { return !!sample.rag; } });
registerTabSection("overview", { id: "rag-variants", order: 10, render: ragVariants });
registerTabSection("compare", { id: "pairwise", order: -10, render: pairwiseSection });
registerTabSection("charts", { id: "rag-rank", order: 10, render: relevanceByRank });
