// citations.js: the citation check of an answer (metric family "citations"). Each sentence shows its citation
// chips; clicking one opens the cited chunk with the supporting quote highlighted; miscited and unsupported
// sentences and irrelevant or out-of-range citations stand out. The samples tab lists the answers with miscited
// sentences (and other citation problems). Address: #...&id=q3&cite=2.1 opens sentence 2's first citation.
var CIT_PROBLEMS = [["miscited", "Answers with miscited sentences"], ["unsupported", "Answers with unsupported sentences"],
  ["uncited", "Answers with uncited factual sentences"], ["out_of_range", "Answers citing a context that does not exist"],
  ["any", "Answers with any citation problem"]];
var CIT_LABELS = { supported: "supported", miscited: "miscited", unsupported: "unsupported", uncited: "uncited",
  not_checked: "not checked" };

function citHas(sample, problem) {
  if (!sample.cit) return false;
  return sample.cit.s.some(function (s) {
    if (problem === "out_of_range") return s.oor.length > 0;
    if (problem === "any") return s.oor.length > 0 || s.v === "miscited" || s.v === "unsupported" || s.v === "uncited" ||
      s.c.some(function (c) { return c.ok === false; });
    return s.v === problem;
  });
}

// The cited chunk, its quote marked, under the sentence list.
function citShowChunk(sample, card, sentenceIndex, citationIndex) {
  var s = sample.cit.s[sentenceIndex], c = s ? s.c[citationIndex] : null, pane = card.querySelector(".cit-chunk");
  if (!c || !sample.ctx[c.k]) return false;
  Array.prototype.forEach.call(card.querySelectorAll(".cit-chip.open"), function (n) { n.classList.remove("open"); });
  var chipNode = card.querySelector('[data-cite="' + (sentenceIndex + 1) + "." + (citationIndex + 1) + '"]');
  if (chipNode) chipNode.classList.add("open");
  var ctx = sample.ctx[c.k], body = el("div", { dir: "auto", "class": "text-block ctx-text" });
  if (c.q) append(body, [ctx.text.slice(0, c.q[0]), el("mark", { "class": "cit-quote", text: ctx.text.slice(c.q[0], c.q[1]) }), ctx.text.slice(c.q[1])]);
  else body.textContent = ctx.text;
  clear(pane);
  append(pane, [el("h4", null, ["Sentence " + (sentenceIndex + 1) + " cites [" + (c.k + 1) + "] ",
      chip(c.ok === null ? "not checked" : c.ok ? "relevant" : "not relevant", c.ok ? "v-supported" : c.ok === false ? "v-contradicted" : "status")]),
    el("p", { "class": "small muted", text: "Context rank " + ctx.rank + (ctx.id !== null ? ", id " + ctx.id : "") +
      (c.q ? "; the supporting quote is highlighted" : c.ok === false ? "; this chunk does not support the sentence" : "; no quote located") }),
    citReview(sample, sentenceIndex, c), body]);
  pane.setAttribute("data-open", (sentenceIndex + 1) + "." + (citationIndex + 1));
  pane.hidden = false;
  if (pane.scrollIntoView) pane.scrollIntoView({ block: "nearest" });
  return true;
}

// Reviewers' decisions on this citation's verdict (decisions.js's state); live, a reviewer confirms or rejects it.
var CIT_DECISION_LABELS = { confirmed: "Confirmed", rejected: "Rejected" };
function citDecisions(sample, sentenceIndex, k) {
  var all = REV.state && REV.state.citations ? REV.state.citations.decisions : [], system = D.systems[sample.sys] ? D.systems[sample.sys].system : "";
  return all.filter(function (d) { return d.system === system && d.sample_id === sample.id && d.sentence === sentenceIndex && d.context === k; });
}
function citReview(sample, sentenceIndex, c) {
  if (c.ok === null || !(LIVE || (REV.state && REV.state.citations))) return null;
  var system = D.systems[sample.sys].system, st = REV.state && REV.state.citations;
  var box = el("div", { "class": "cit-review", "data-cit-review": (sentenceIndex + 1) + "." + (c.k + 1) });
  var ds = citDecisions(sample, sentenceIndex, c.k);
  if (ds.length) append(box, el("ul", { "class": "decisions" }, ds.map(function (d) {
    var own = LIVE && REV.name && d.reviewer === REV.name && !d.stale;
    return el("li", { "class": "decision" + (d.stale ? " stale" : "") }, [
      own ? el("button", { type: "button", "class": "btn withdraw", text: "Withdraw", onclick: function () {
        decide({ system: system, sample_id: sample.id, citation: { sentence: sentenceIndex, context: c.k }, decision: "withdrawn" });
      } }) : null,
      el("strong", { "class": "reviewer", text: d.reviewer }), ": ",
      chip(CIT_DECISION_LABELS[d.decision] || d.decision, "d-" + (d.decision === "confirmed" ? "confirmed" : "false_alarm")),
      el("span", { "class": "small muted", text: " (shown: " + d.shown.replace("_", " ") + (d.corrected ? "; says " + d.corrected.replace("_", " ") : "") + ")" }),
      d.note ? [" \u2014 ", el("span", { dir: "auto", "class": "note", text: d.note })] : null,
      d.stale ? [" ", chip("stale", "status", d.stale)] : null]);
  })));
  if (!LIVE) {
    append(box, el("p", { "class": "small muted", text: "To confirm or reject this verdict, run: " + reviewCommand() }));
  } else if (!REV.name) {
    append(box, el("p", { "class": "small muted", text: "Give your name in the review card below to confirm or reject this verdict." }));
  } else {
    var note = el("input", { type: "text", "class": "review-note", maxlength: "4000", placeholder: "note (optional)" });
    append(box, el("div", { "class": "toolbar" }, [["confirmed", "Confirm: " + (c.ok ? "supports" : "does not support")],
      ["rejected", "Reject: " + (c.ok ? "does not support" : "supports")]].map(function (b) {
      return el("button", { type: "button", "class": "btn", "data-cit-decision": b[0], text: b[1], onclick: function () {
        decide({ system: system, sample_id: sample.id, citation: { sentence: sentenceIndex, context: c.k }, decision: b[0], note: note.value });
      } });
    }).concat([note])));
    if (REV.error) append(box, el("p", { "class": "warning", text: "Not saved: " + REV.error }));
  }
  if (st) {
    var a = st.agreement;
    append(box, el("p", { "class": "small muted", id: "citations-review-progress", text: "Reviewed " + fmtInt(st.progress.reviewed) + " of " +
      fmtInt(st.progress.checked) + " checked citations" + (a.n ? "; the check agrees with the reviewers on " + a.agree + " of " + a.n +
      " (95% CI " + fmt(a.ci95[0]) + "\u2013" + fmt(a.ci95[1]) + ")" : "") + (st.stale ? "; " + plural(st.stale, "decision") + " stale" : "") }));
  }
  return box;
}

function citCard(sample) {
  var cit = sample.cit, card = el("div", { "class": "card", id: "citations-card" });
  card.appendChild(el("h3", null, ["Citations ", cit.st === "ok" ? null : chip(cit.st, "status", cit.why || null)]));
  if (cit.why) card.appendChild(el("p", { "class": "small muted", text: cit.why }));
  var list = el("ol", { "class": "cit-sentences" });
  cit.s.forEach(function (s, i) {
    var bad = s.v === "miscited" || s.v === "unsupported" || s.oor.length > 0;
    var chips = s.c.map(function (c, k) {
      return el("button", { type: "button", "class": "chip cit-chip " + (c.ok === false ? "cit-bad" : c.ok ? "cit-ok" : "status"),
        "data-cite": (i + 1) + "." + (k + 1), title: c.ok === false ? "does not support this sentence" : null, text: "[" + (c.k + 1) + "]",
        onclick: function () { citShowChunk(sample, card, i, k); if (typeof updateLink === "function") updateLink({ cite: (i + 1) + "." + (k + 1) }); } });
    }).concat(s.oor.map(function (r) { return chip("[" + r + "] out of range", "cit-bad cit-oor", "names no retrieved context"); }));
    list.appendChild(el("li", { "class": "cit-sentence" + (bad ? " cit-problem" : "") + (s.v === "uncited" ? " cit-uncited" : ""), "data-verdict": s.v || "" }, [
      s.v ? chip(CIT_LABELS[s.v] || s.v, s.v === "supported" ? "v-supported" : s.v === "not_checked" ? "status" : bad ? "v-contradicted" : "v-unverifiable", s.why || null) : null,
      " ", el("span", { dir: "auto", "class": "cit-text", text: s.t }), " "].concat(chips)));
  });
  append(card, [list, el("div", { "class": "card cit-chunk", hidden: true })]);
  return card;
}

// The samples tab's citation filter: the answers with a chosen problem, each opening its sample.
function citFilter(root) {
  var having = D.samples.some(function (s) { return !!s.cit; });
  if (!having) return;
  var start = typeof linkParams === "function" ? (linkParams().get("citf") || "") : "";
  var out = el("ul", { "class": "cit-filtered", id: "citations-filtered" }), count = el("span", { "class": "count" });
  function draw(problem) {
    clear(out);
    if (!problem) { count.textContent = ""; return; }
    var found = [];
    D.samples.forEach(function (s, i) { if (citHas(s, problem)) found.push(i); });
    count.textContent = found.length + " answer(s)";
    found.forEach(function (i) {
      var s = D.samples[i];
      out.appendChild(el("li", { "class": "clickable", "data-index": String(i), onclick: function () { openSample(i); } },
        [el("span", { "class": "mono", text: sysLabel(s.sys) + " \u00B7 " + s.id }), " ", el("span", { dir: "auto", "class": "small", text: s.a })]));
    });
  }
  var box = selectBox([["", "(choose)"]].concat(CIT_PROBLEMS), start, function (v) {
    draw(v); if (typeof updateLink === "function") updateLink({ citf: v });
  }, "Citations");
  box.querySelector("select").id = "citations-filter";
  root.appendChild(el("div", { "class": "card", id: "citations-filter-card" }, [el("div", { "class": "toolbar" }, [box, count]), out]));
  draw(start);
}

// Opening a sample from an address with cite=S.K opens that citation; opening another one forgets it.
registerHook("sample-opened", { id: "citations", order: 20, run: function (index) {
  var sample = D.samples[index], card = document.getElementById("citations-card");
  var cite = typeof linkParams === "function" ? linkParams().get("cite") : null;
  if (typeof applyingLink !== "undefined" && !applyingLink) { if (cite && typeof updateLink === "function") updateLink({ cite: null }); return; }
  if (!cite || !card || !sample.cit) return;
  var parts = cite.split(".");
  citShowChunk(sample, card, Number(parts[0]) - 1, Number(parts[1] || 1) - 1);
} });
// A new review state redraws the open citation (its decisions and buttons).
registerHook("review-changed", { id: "citations-review", run: function () {
  var card = document.getElementById("citations-card"), pane = card ? card.querySelector(".cit-chunk") : null;
  if (!pane || pane.hidden || REV.panel === null || !D.samples[REV.panel] || !D.samples[REV.panel].cit) return;
  var at = (pane.getAttribute("data-open") || "").split(".");
  citShowChunk(D.samples[REV.panel], card, Number(at[0]) - 1, Number(at[1]) - 1);
} });
registerSampleSection({ id: "citations", order: 5, render: citCard, when: function (sample) { return !!sample.cit; } });
registerTabSection("samples", { id: "citations-filter", order: -5, render: citFilter });
