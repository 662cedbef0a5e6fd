// items.js: the item-by-item review page (`genevals review --blind` / `--queue N`). Answers in the server's
// order; each claim is decided without the judge's verdict in a blind review, which the server sends only once
// the reviewer has decided every claim of the answer.
var D = JSON.parse(document.getElementById("genevals-data").textContent);
var S = { name: "", items: [], at: 0, item: null, error: "" };
var LABELS = { confirmed: "Not supported (hallucinated)", false_alarm: "Supported", not_in_answer: "Not in the answer (the judge invented it)", unsure: "Unsure" };
var JUDGE = { supported: "supported", contradicted: "contradicted", unverifiable: "unverifiable", from_history: "from history (repeats the user; no hallucination)" };
try { S.name = window.localStorage.getItem("genevals-reviewer") || ""; } catch (e) { S.name = ""; }

function el(tag, attrs, kids) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    if (k === "text") node.textContent = attrs[k];
    else if (k === "onclick") node.addEventListener("click", attrs[k]);
    else if (attrs[k] !== null && attrs[k] !== undefined) node.setAttribute(k, attrs[k]);
  });
  (kids || []).forEach(function (c) { if (c !== null && c !== undefined) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return node;
}
function api(method, path, body) {
  return fetch(path, { method: method, cache: "no-store", credentials: "same-origin",
    headers: { "X-Genevals-Token": D.review.token, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined
  }).then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || "HTTP " + r.status); return j; }); });
}
function query(params) {
  return Object.keys(params).map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(params[k]); }).join("&");
}
function fail(err) { S.error = String(err.message || err); draw(); document.documentElement.setAttribute("data-review", "error"); }

function loadItems() {
  return api("GET", "/api/items?" + query({ reviewer: S.name })).then(function (r) {
    S.items = r.items; S.listing = r;
    if (S.at >= S.items.length) S.at = 0;
    return S.items.length ? loadItem(S.at) : draw();
  }, fail);
}
function loadItem(at) {
  S.at = at;
  var it = S.items[at];
  return api("GET", "/api/item?" + query({ system: it.system, sample_id: it.sample_id, reviewer: S.name })).then(function (r) {
    S.item = r; S.error = ""; draw(); document.documentElement.setAttribute("data-review", "ready");
  }, fail);
}
function decide(claim, decision, note) {
  var it = S.item;
  return api("POST", "/api/decisions", { reviewer: S.name, system: it.system, sample_id: it.sample_id, claim: claim,
    decision: decision, note: note }).then(function () { return loadItems(); }, fail);
}

// The answer with every claim underlined alike: where the claims lie is no verdict.
function answerBlock(item) {
  var text = item.answer, marks = [];
  item.claims.forEach(function (c, k) { c.spans.forEach(function (sp) { marks.push([sp[0], sp[1], k]); }); });
  marks.sort(function (a, b) { return a[0] - b[0]; });
  var node = el("div", { "class": "answer", dir: "auto" }), pos = 0;
  marks.forEach(function (m) {
    if (m[0] < pos) return;
    node.appendChild(document.createTextNode(text.slice(pos, m[0])));
    node.appendChild(el("span", { "class": "claim-span", "data-claim": String(m[2]), text: text.slice(m[0], m[1]) }));
    pos = m[1];
  });
  node.appendChild(document.createTextNode(text.slice(pos)));
  return node;
}
function verdictLine(c) {
  var v = c.verdict, parts = [el("strong", { text: "Judge: " }), el("span", { "class": "verdict v-" + v.label, text: JUDGE[v.label] || v.label })];
  if (v.reason) parts.push(el("span", { "class": "muted", text: " \u2014 " + v.reason }));
  if (v.jury) parts.push(el("div", { "class": "muted jury", text: "jury: " + Object.keys(v.jury).map(function (j) { return j + " " + (v.jury[j] || "no verdict"); }).join(", ") }));
  if (v.repeats) parts.push(el("div", { "class": "muted repeats", text: "repeats: " + v.repeats.map(function (r) { return r || "failed"; }).join(", ") }));
  return el("div", { "class": "revealed" }, parts);
}
function claimCard(c, k) {
  var note = el("input", { type: "text", "class": "note", maxlength: "4000", placeholder: "note (optional)" });
  var buttons = S.name ? el("div", { "class": "buttons" }, ["confirmed", "false_alarm", "not_in_answer", "unsure"].map(function (d) {
    return el("button", { type: "button", "data-decision": d, "class": c.mine && c.mine.decision === d ? "chosen" : "",
      text: LABELS[d], onclick: function () { decide(c.index, d, note.value); } });
  }).concat([note])) : el("p", { "class": "muted name-needed", text: "Save your name above to decide this claim." });
  return el("div", { "class": "claim", "data-claim": String(k) }, [
    el("div", null, [el("strong", { text: "Claim " + (k + 1) + ": " }), el("span", { dir: "auto", text: c.text })]),
    c.mine ? el("div", { "class": "mine" }, ["Your decision: " + LABELS[c.mine.decision] + (c.mine.blind ? " (made blind)" : "")]) : null,
    buttons, c.verdict ? verdictLine(c) : null]);
}
// selectionIn: genevals/report/selection.js, loaded before this script (see genevals/review/page.py)
function missedBox(item) {
  if (!S.name) return null;
  var note = el("input", { type: "text", id: "missed-note", maxlength: "4000", placeholder: "note (optional)" });
  return el("div", { "class": "buttons" }, [el("span", { "class": "muted", text: "Unsupported text no claim covers? Select it in the answer, then " }),
    el("button", { type: "button", id: "mark-missed", text: "Mark selection as hallucinated", onclick: function () {
      var span = selectionIn(document.querySelector("#item .answer"));
      if (!span || span[0] === span[1]) { S.error = "select some text of the answer first"; draw(); return; }
      api("POST", "/api/decisions", { reviewer: S.name, system: item.system, sample_id: item.sample_id, span: span,
        decision: "missed", note: note.value }).then(function () { return loadItems(); }, fail);
    } }), note,
    item.missed ? el("div", { id: "missed-count", "class": "muted", text: item.missed + " passage(s) marked" }) : null]);
}
function nameBox() {
  var input = el("input", { type: "text", id: "review-name", maxlength: "80", placeholder: "your name", value: S.name });
  function save() {
    S.name = input.value.trim();
    try { window.localStorage.setItem("genevals-reviewer", S.name); } catch (e) { /* storage may be off */ }
    loadItems();
  }
  input.addEventListener("keydown", function (e) { if (e.key === "Enter") save(); });
  return el("div", { "class": "toolbar" }, [el("label", null, ["Reviewer ", input]),
    el("button", { type: "button", id: "review-name-save", text: "Save name", onclick: save })]);
}
function draw() {
  var main = document.getElementById("main");
  while (main.firstChild) main.removeChild(main.firstChild);
  main.appendChild(el("p", { id: "review-mode", "class": "muted", text: (D.review.blind ? "Blind review: the judge's verdicts on an answer appear once you have decided each of its claims. " : "") +
    (D.review.queue ? "Answers in the review queue's order (drawn at random within strata, so the labels measure the judge on the whole run)." : "") }));
  main.appendChild(nameBox());
  // without a saved name no decision can be stored: say so, rather than a page with no way to decide
  if (!S.name) main.appendChild(el("p", { id: "review-name-needed", "class": "warning", text: "Type your name and press Save name to start: " +
    "the buttons to decide each claim appear once it is saved, and your decisions are stored under it." }));
  if (S.error) main.appendChild(el("p", { id: "review-error", "class": "warning", text: S.error }));
  // queued answers the run no longer has (scored again without them): said, so the count below is not a puzzle
  if (S.listing && S.listing.missing) main.appendChild(el("p", { id: "queue-missing", "class": "warning", text: S.listing.missing +
    " of the review queue's answers are no longer in the run's results.jsonl (scored again?) and are left out." }));
  var done = S.items.filter(function (i) { return i.done; }).length;
  var list = el("ol", { id: "item-list" }, S.items.map(function (it, n) {
    return el("li", { "class": (n === S.at ? "current " : "") + (it.done ? "done" : ""), "data-item": String(n) }, [
      el("button", { type: "button", text: it.system + " / " + it.sample_id + (it.done ? " \u2713" : ""), onclick: function () { loadItem(n); } })]);
  }));
  main.appendChild(el("div", { "class": "layout" }, [el("aside", null, [el("p", { id: "item-progress", text: done + " of " + S.items.length + " answers done" }), list]),
    S.item ? itemView(S.item) : el("p", { text: S.items.length ? "" : "Nothing to review." })]));
  document.documentElement.setAttribute("data-ready", "true");
}
// A conversation's turn: the earlier turns it was judged with, system messages muted, before its question.
function conversationBlock(conv) {
  if (!conv) return null;
  return el("div", { id: "conversation" }, [
    el("h3", { text: "Conversation " + (conv.id === null ? "" : conv.id) + (conv.turn ? ", turn " + conv.turn : "") + ": earlier turns" }),
    conv.dropped ? el("p", { "class": "muted", text: conv.dropped + " earlier message(s) left out (the history budget)" }) : null,
    conv.history.length ? el("ol", { "class": "history" }, conv.history.map(function (m) {
      return el("li", { "class": "msg-" + m.role + (m.role === "system" ? " muted" : ""), dir: "auto" }, [el("strong", { text: m.role + ": " }), m.content]);
    })) : el("p", { "class": "muted", text: "No earlier turns." }),
    el("h3", { text: "This turn" })]);
}
function itemView(item) {
  var next = S.at + 1 < S.items.length ? el("button", { type: "button", id: "next-item", text: "Next answer", onclick: function () { loadItem(S.at + 1); } }) : null;
  return el("section", { id: "item", "data-revealed": String(item.revealed) }, [
    el("h2", { text: item.system + " / " + item.sample_id }),
    conversationBlock(item.conversation),
    item.question ? el("p", { "class": "question", dir: "auto", text: item.question }) : null,
    el("h3", { text: "Answer" }), answerBlock(item), missedBox(item),
    item.revealed && item.faithfulness !== null && item.faithfulness !== undefined ? el("p", { id: "faithfulness", text: "Judge's faithfulness: " + item.faithfulness.toFixed(3) }) : null,
    el("h3", { text: "Claims" }), el("div", { id: "claims" }, item.claims.map(claimCard)),
    el("h3", { text: "Contexts" }), el("ol", { "class": "contexts" }, item.contexts.map(function (c) { return el("li", { dir: "auto", text: c }); })),
    next]);
}
loadItems();
