// The generated test set's review page (genevals/review/set_app.py): the items listed, one shown with its chunks
// (evidence marked at its offsets) and, unless blind, its gates; valid / invalid with a reason / unsure.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("genevals-data").textContent).review;
  const REASONS = [["wrong_reference", "wrong reference"], ["not_answerable", "not answerable from the cited text"],
    ["not_self_contained", "not self-contained"], ["wrong_type", "wrong type"], ["duplicate", "duplicate"],
    ["other", "other (say what in the note)"]];
  const main = document.getElementById("main");
  let reviewer = localStorage.getItem("genevals-reviewer") || "";
  let current = 0;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children) node.append(c);
    return node;
  }
  async function api(path, body) {
    const init = {headers: {"X-Genevals-Token": DATA.token, "Content-Type": "application/json"}};
    if (body !== undefined) { init.method = "POST"; init.body = JSON.stringify(body); }
    const response = await fetch(path, init);
    const reply = await response.json();
    if (!response.ok) throw new Error(reply.error || response.statusText);
    return reply;
  }
  function showRate(rates) {
    const line = document.getElementById("rate");
    const kept = rates && rates.kept;
    if (!kept) { line.textContent = DATA.queue ? "" : "No queue: serve with --queue N to estimate the valid-item rate."; return; }
    let text = kept.n ? `Valid-item rate ${(100 * kept.rate).toFixed(1)}% (95% CI ${(100 * kept.ci95[0]).toFixed(1)}` +
      `-${(100 * kept.ci95[1]).toFixed(1)}%, n=${kept.n}; ${kept.unsure} unsure left out; ${kept.undecided} of ` +
      `${kept.queue} queued not decided)` : `No queued item decided yet (${kept.queue} queued).`;
    if (rates.rejected && rates.rejected.n) text += ` Rejected items: ${(100 * rates.rejected.rate).toFixed(1)}% valid (n=${rates.rejected.n}).`;
    line.textContent = text;
  }
  function marked(text, marks) {
    const box = el("div", {class: "box chunk"});
    let at = 0;
    for (const [s, e] of marks) {
      if (s < at) continue;
      box.append(text.slice(at, s), el("mark", {}, text.slice(s, e)));
      at = e;
    }
    box.append(text.slice(at));
    return box;
  }
  async function decide(item, decision, reason, note) {
    if (!reviewer) { alert("Enter your name first."); return; }
    try {
      const reply = await api("/api/decisions", {reviewer, ref: item.ref, decision, reason, note});
      showRate(reply.rates);
      await load(Math.min(item.ref + 1, list.length - 1));
    } catch (err) { document.getElementById("error").textContent = err.message; }
  }
  let list = [];
  function renderItem(item) {
    const chosen = item.mine ? item.mine.decision : null;
    const note = el("textarea", {id: "note", rows: "2", cols: "60", placeholder: "note (needed for other)"});
    note.value = item.mine ? item.mine.note : "";
    const reason = el("select", {id: "reason"}, el("option", {value: ""}, "reason it is invalid..."),
      ...REASONS.map(([v, label]) => el("option", {value: v}, label)));
    if (item.mine && item.mine.reason) reason.value = item.mine.reason;
    const button = (d, label) => {
      const b = el("button", {type: "button", "data-decision": d, class: chosen === d ? "chosen" : ""}, label);
      b.addEventListener("click", () => {
        if (d === "invalid" && !reason.value) { document.getElementById("error").textContent = "Pick a reason first."; return; }
        decide(item, d, d === "invalid" ? reason.value : null, note.value);
      });
      return b;
    };
    const body = el("section", {id: "item", "data-ref": String(item.ref)},
      el("h2", {}, `Item ${item.ref + 1} of ${list.length}: ${item.id}`), el("p", {class: "muted"}, `type: ${item.type}`),
      el("h3", {}, "Question"), el("div", {class: "box", id: "question"}, item.question),
      el("h3", {}, "Reference answer"), el("div", {class: "box", id: "reference"}, item.reference),
      el("h3", {}, "Cited chunks (evidence marked)"));
    for (const c of item.contexts) {
      body.append(el("p", {class: "muted"}, c.chunk_id));
      body.append(c.text === null ? el("div", {class: "box"}, "(text not in the set's files) quotes: " + c.quotes.join(" | "))
        : marked(c.text, c.marks));
    }
    if (item.gates) {
      body.append(el("h3", {}, item.group === "rejected" ? `Gates (rejected: ${item.rejection})` : "Gates"),
        el("ul", {class: "gates"}, ...item.gates.map(g => el("li", {class: g.status === "passed" ? "passed" : g.status === "not_checked" ? "muted" : "failed"},
          `${g.gate}: ${g.status}` + (g.reason ? ` (${g.reason})` : "")))));
    }
    body.append(el("div", {class: "buttons"}, button("valid", "Valid"), reason, button("invalid", "Invalid"),
      button("unsure", "Unsure")), note, el("p", {id: "error", class: "muted"}));
    return body;
  }
  async function load(ref) {
    current = ref;
    const listing = await api(`/api/items?reviewer=${encodeURIComponent(reviewer)}`);
    list = listing.items;
    showRate(listing.rates);
    const nav = el("ol", {id: "item-list"}, ...list.map(row => {
      const b = el("button", {type: "button"}, `${row.id}${row.mine ? " (" + row.mine + ")" : ""}`);
      b.addEventListener("click", () => load(row.ref));
      return el("li", {class: row.ref === current ? "current" : "", "data-mine": row.mine || ""}, b);
    }));
    const name = el("input", {id: "reviewer", placeholder: "your name", value: reviewer});
    name.addEventListener("change", () => { reviewer = name.value.trim(); localStorage.setItem("genevals-reviewer", reviewer); load(current); });
    const content = list.length ? renderItem(await api(`/api/item?ref=${ref}&reviewer=${encodeURIComponent(reviewer)}`))
      : el("p", {}, "No item to review.");
    main.replaceChildren(el("p", {}, "Reviewer: ", name, DATA.blind ? " (blind: the gates are hidden)" : ""),
      el("div", {class: "layout"}, nav, content));
  }
  load(0).catch(err => { main.textContent = "Error: " + err.message; });
})();
