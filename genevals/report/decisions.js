// decisions.js: reviewers' decisions on the judge's claims.
// Live (the page served by `genevals review RUN_DIR`): marks go to the server with the page's token.
// Static (report.html): the decisions stored when the report was built, read-only, and how to start reviewing.
var REVIEW = D.review || null;
var LIVE = !!(REVIEW && REVIEW.mode === "live");
var REV = { state: REVIEW && !LIVE && REVIEW.decisions ? REVIEW : null, error: "", name: "", panel: null, status: null };
var DECISION_LABELS = { confirmed: "Confirmed hallucination", false_alarm: "False alarm", unsure: "Unsure", missed: "Missed hallucination",
  not_in_answer: "Not in the answer (the judge invented it)" };
try { REV.name = window.localStorage.getItem("genevals-reviewer") || ""; } catch (e) { REV.name = ""; }

function reviewCommand() {
  var run = REVIEW ? REVIEW.run : D.runs.length === 1 ? D.runs[0].path : "RUN_DIR";
  return "genevals review " + run;
}
function reviewApi(method, path, body) {
  return fetch(path, { method: method, cache: "no-store", credentials: "same-origin",
    headers: { "X-Genevals-Token": REVIEW.token, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined
  }).then(function (r) {
    return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || "HTTP " + r.status); return j; });
  });
}
function redrawReview() {
  if (REV.panel !== null && !drawer.hidden) reviewPanel(REV.panel);
  if (REV.status) drawStatus(REV.status);
  runHooks("review-changed");
}
function loadDecisions() {
  return reviewApi("GET", "/api/state").then(function (s) { REV.state = s; REV.error = ""; redrawReview(); document.documentElement.setAttribute("data-review", "ready"); },
    function (err) { REV.error = String(err.message || err); redrawReview(); document.documentElement.setAttribute("data-review", "error"); });
}
function decide(body) {
  body.reviewer = REV.name;
  return reviewApi("POST", "/api/decisions", body).then(function (s) { REV.state = s; REV.error = ""; redrawReview(); },
    function (err) { REV.error = String(err.message || err); redrawReview(); });
}
// Decisions by system and sample id, rebuilt when the state changes.
function sampleDecisions(sample) {
  if (!REV.state) return [];
  if (REV.indexed !== REV.state) {
    REV.index = {};
    REV.state.decisions.forEach(function (d) { (REV.index[d.system + "\u0000" + d.sample_id] = REV.index[d.system + "\u0000" + d.sample_id] || []).push(d); });
    REV.indexed = REV.state;
  }
  var system = D.systems[sample.sys] ? D.systems[sample.sys].system : "";
  return REV.index[system + "\u0000" + sample.id] || [];
}
function claimDecisions(sample, claimIndex) { return sampleDecisions(sample).filter(function (d) { return d.claim === claimIndex; }); }
// Whether a claim has a decision that still applies (for the review tab's "Review" filter).
function claimReviewed(sample, claimIndex) { return claimDecisions(sample, claimIndex).some(function (d) { return !d.stale; }); }
// The review tab's "Review" cell: each reviewer's decision on the claim.
function reviewCell(sample, claimIndex) {
  var ds = claimDecisions(sample, claimIndex);
  if (!ds.length) return el("span", { "class": "small muted", text: "not reviewed" });
  return ds.map(function (d) {
    return el("div", { "class": "small" + (d.stale ? " stale" : "") }, [el("span", { "class": "reviewer", text: d.reviewer + ": " }),
      chip(DECISION_LABELS[d.decision] || d.decision, "d-" + d.decision, d.stale || d.note || null)]);
  });
}
function decisionLine(d) {
  var own = LIVE && REV.name && d.reviewer === REV.name && !d.stale;
  return el("li", { "class": "decision" + (d.stale ? " stale" : "") }, [
    own ? el("button", { type: "button", "class": "btn withdraw", text: "Withdraw", onclick: function () {
      decide({ system: d.system, sample_id: d.sample_id, claim: d.claim, span: d.claim === null ? d.span : null, decision: "withdrawn" });
    } }) : null,
    el("strong", { "class": "reviewer", text: d.reviewer }), ": ", chip(DECISION_LABELS[d.decision] || d.decision, "d-" + d.decision),
    d.text ? [" ", el("q", { dir: "auto", text: d.text })] : null, d.note ? [" \u2014 ", el("span", { dir: "auto", "class": "note", text: d.note })] : null,
    d.stale ? [" ", chip("stale", "status", d.stale), el("span", { "class": "small muted", text: " " + d.stale })] : null,
    el("span", { "class": "small muted", text: " " + d.time })]);
}


function nameBox() {
  var input = el("input", { type: "text", id: "review-name", maxlength: "80", placeholder: "your name", value: REV.name });
  function save() {
    REV.name = input.value.trim();
    try { window.localStorage.setItem("genevals-reviewer", REV.name); } catch (e) { /* storage may be off */ }
    redrawReview();
  }
  input.addEventListener("keydown", function (e) { if (e.key === "Enter") save(); });
  return el("div", { "class": "toolbar" }, [el("label", null, ["Reviewer", input]),
    el("button", { type: "button", "class": "btn", id: "review-name-save", text: "Save name", onclick: save }),
    REV.name ? el("span", { "class": "small muted", id: "review-as", text: "Reviewing as " + REV.name }) : null]);
}

// The review card of one sample's drawer, before the evidence card.
function reviewPanel(index) {
  var sample = D.samples[index], old = document.getElementById("review-panel");
  if (old) old.remove();
  REV.panel = index;
  if (sample.x || (!sample.j && !LIVE)) return;
  var rows = claimRows(sample), mine = sampleDecisions(sample), card = el("div", { "class": "card", id: "review-panel" });
  append(card, el("h3", { text: "Review" }));
  if (!LIVE) {
    append(card, el("p", { "class": "small muted", id: "review-readonly", text: (REV.state ? "Read-only: decisions stored when this report was built." : REVIEW ? "No stored decisions." :
      "This report carries no reviewer decisions (genevals report RUN_DIR embeds the stored ones).") +
      " To review, run: " + reviewCommand() }));
  } else {
    append(card, nameBox());
    if (REV.error) append(card, el("p", { "class": "warning", id: "review-error", text: "Not saved: " + REV.error }));
  }
  var canWrite = LIVE && REV.name;
  if (LIVE && !REV.name) append(card, el("p", { "class": "small muted", text: "Give your name once to mark claims." }));
  rows.forEach(function (r, k) {
    var decided = mine.filter(function (d) { return d.claim === r.claim.index; });
    var note = el("input", { type: "text", "class": "review-note", maxlength: "4000", placeholder: "note (optional)" });
    var buttons = canWrite ? el("div", { "class": "toolbar" }, ["confirmed", "false_alarm", "not_in_answer", "unsure"].map(function (d) {
      return el("button", { type: "button", "class": "btn", "data-decision": d, text: DECISION_LABELS[d], onclick: function () {
        decide({ system: D.systems[sample.sys].system, sample_id: sample.id, claim: r.claim.index, decision: d, note: note.value });
      } });
    }).concat([note])) : null;
    append(card, el("div", { "class": "review-claim", "data-review-claim": String(k) }, [
      el("div", null, [el("strong", { text: "Claim " + (k + 1) + " " }), verdictChip(r.label), " ", el("span", { dir: "auto", text: r.claim.text })]),
      decided.length ? el("ul", { "class": "decisions" }, decided.map(decisionLine)) : null, buttons]));
  });
  var marks = mine.filter(function (d) { return d.claim === null; });
  append(card, el("h4", { text: "Missed hallucinations" }));
  if (marks.length) append(card, el("ul", { "class": "decisions", id: "missed-list" }, marks.map(decisionLine)));
  if (canWrite) {
    var missedNote = el("input", { type: "text", "class": "review-note", id: "missed-note", maxlength: "4000", placeholder: "note (optional)" });
    append(card, el("div", { "class": "toolbar" }, [el("span", { "class": "small muted", text: "Select text in the answer, then" }),
      el("button", { type: "button", "class": "btn", id: "mark-missed", text: "Mark selection as missed hallucination", onclick: function () {
        var span = selectionIn(drawerBody.querySelector(".text-block.answer"));
        if (!span || span[0] === span[1]) { REV.error = "select some text of the answer first"; redrawReview(); return; }
        decide({ system: D.systems[sample.sys].system, sample_id: sample.id, span: span, decision: "missed", note: missedNote.value });
      } }), missedNote]));
  }
  var evidence = drawerBody.querySelector("#evidence");
  drawerBody.insertBefore(card, evidence || null);
}

function drawStatus(card) {
  clear(card);
  append(card, el("h3", { text: "Reviewers" }));
  if (LIVE) append(card, el("p", { "class": "small muted", id: "review-mode", text: "Reviewing live: decisions are saved to " + REVIEW.run + "/review.sqlite. Open a claim to mark it." }));
  else append(card, el("p", { "class": "notice", id: "review-mode", text: (REV.state && REV.state.stored ? "Read-only: the " + plural(REV.state.stored, "decision") +
    " stored in review.sqlite when this report was built." : "No reviewer decisions stored yet.") + " To review these claims, run: " + reviewCommand() + " and open the address it prints." }));
  if (REV.error && LIVE) append(card, el("p", { "class": "warning", text: REV.error }));
  var st = REV.state;
  if (!st) return;
  if (st.unreadable) append(card, el("p", { "class": "warning", id: "review-unreadable", text: "The review store could not be read, so no decisions are shown: " + st.unreadable }));
  if (st.skipped) append(card, el("p", { "class": "warning", id: "review-skipped", text: plural(st.skipped, "stored row") + " of review.sqlite could not be read as decisions (damaged or edited by hand): left out." }));
  var p = st.progress;
  append(card, el("p", { id: "review-progress" }, [el("strong", { text: "Reviewed " + fmtInt(p.reviewed) + " of " + fmtInt(p.flagged) + " flagged claims" }),
    st.missed ? " \u00B7 " + plural(st.missed, "missed hallucination") + " marked" : null]));
  var pr = st.precision;
  append(card, el("p", { id: "review-precision", text: pr.n ? "Judge precision on reviewed claims: " + fmt(pr.precision) + " (" + pr.confirmed + " of " + pr.n +
    " confirmed" + (pr.not_in_answer ? ", " + pr.not_in_answer + " not in the answer (the judge invented them)" : "") +
    "; 95% CI " + fmt(pr.ci95[0]) + "\u2013" + fmt(pr.ci95[1]) + ")" : "Judge precision appears once flagged claims are confirmed or called false alarms." }));
  append(card, el("div", { id: "review-agreement" }, st.agreement.length ? st.agreement.map(function (a) {
    return el("p", { "class": "agreement" }, [el("span", { "class": "reviewer", text: a.a }), " and ", el("span", { "class": "reviewer", text: a.b }),
      ": Cohen's \u03BA = " + fmt(a.kappa) + " on " + plural(a.n, "claim") + " both decided (" + a.agree + " agree" + (a.unsure ? "; " + a.unsure + " with unsure left out" : "") + ")"]);
  }) : el("p", { "class": "small muted", text: "Agreement (Cohen's \u03BA) appears when two reviewers have decided the same claims." })));
  if (st.stale) append(card, el("p", { "class": "warning", id: "review-stale", text: plural(st.stale, "decision") + " made on an earlier version of this run (the claim changed or is gone): shown as stale, not counted." }));
  if (!st.decisions.length) return;
  var body = el("tbody");
  st.decisions.forEach(function (d) {
    var label = D.systems.filter(function (s) { return s.system === d.system; }).map(function (s) { return s.label; })[0] || d.system;
    var i = findSample(label, d.sample_id), k = -1;
    if (i >= 0 && d.claim !== null) claimRows(D.samples[i]).forEach(function (r, n) { if (r.claim.index === d.claim) k = n; });
    body.appendChild(el("tr", { "class": (i >= 0 ? "clickable" : "") + (d.stale ? " stale" : ""), onclick: i >= 0 ? function () { openSample(i, k >= 0 ? k : undefined); } : null }, [
      el("td", { "class": "reviewer", text: d.reviewer }), el("td", null, [el("div", { text: label }), el("div", { "class": "mono small muted", text: d.sample_id })]),
      el("td", { text: d.claim === null ? "marked text" : "claim " + (k >= 0 ? k + 1 : d.claim + 1) }),
      el("td", null, chip(DECISION_LABELS[d.decision] || d.decision, "d-" + d.decision)),
      el("td", { dir: "auto", "class": "note", text: d.text ? "\u201C" + d.text + "\u201D " + d.note : d.note }),
      el("td", { "class": "small", text: d.stale || "current" }), el("td", { "class": "small muted", text: d.time })]));
  });
  append(card, el("div", { "class": "table-wrap" }, el("table", { id: "decisions-table" }, [el("thead", null, el("tr", null,
    ["Reviewer", "Sample", "Claim", "Decision", "Note", "Applies", "Time"].map(function (h) { return el("th", { text: h }); }))), body])));
}

// The reviewers' card, under the review tab's heading.
registerTabSection("review", { id: "review-status", order: -10, when: function () { return D.runs.length === 1 && hasJudge(); },
  render: function (root) {
    REV.status = root.appendChild(el("div", { "class": "card", id: "review-status" }));
    drawStatus(REV.status);
  } });
registerHook("sample-opened", { id: "review-panel", order: 20, run: reviewPanel });
if (LIVE) loadDecisions();
