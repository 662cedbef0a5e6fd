// conversations.js: the conversation view, drawn only when the run has conversations (D.conversations, from
// report/conversations.py). The transcript in order: system messages muted, the user's turns, and each
// assistant turn with its scores and its claims highlighted as in a sample's drawer. A claim repeating what the
// user said earlier (from_history) is its own label: neither supported by the contexts nor a hallucination.
// Address: #tab=conversations&conv=ID&turn=N (&csys=SYSTEM when several systems have that conversation).
var UNSUPPORTED = { contradicted: 1, unverifiable: 1 };
var LABEL_NOTES = {
  supported: "the retrieved contexts support it",
  contradicted: "the contexts say otherwise: a hallucination",
  unverifiable: "nothing in the contexts supports it: a hallucination",
  from_history: "repeats what the user said earlier: neither supported by the contexts nor a hallucination"
};
var RETENTION = "knowledge_retention";

function hasConversations() { return !!(D.conversations && D.conversations.length); }
// Knowledge-retention failures are filtered on only when the run has that metric (a turn scored below 1).
// The metric's value is the conversation's, on its last turn; the turns that failed are those its details name
// (s.kr: [{turn, text}]), else the turn carrying a value below 1.
function hasRetention() { return METRIC_INDEX[RETENTION] !== undefined; }
if (hasConversations()) D.conversations.forEach(function (conv) {
  conv.kr = {};
  conv.turns.forEach(function (i) {
    var s = D.samples[i], v = metricValue(s, RETENTION);
    (s.kr || []).forEach(function (f) { conv.kr[f.turn] = (conv.kr[f.turn] ? conv.kr[f.turn] + " \u00B7 " : "") + f.text; });
    if (v !== null && v < 1 && !(s.kr && s.kr.length)) conv.kr[s.tn] = conv.kr[s.tn] || "";
  });
  conv.turns.forEach(function (i) { D.samples[i].krFail = D.samples[i].tn in conv.kr; });
});
function retentionFailed(sample) { return !!sample.krFail; }
function unsupportedTurn(sample) {
  if (sample.j) return claimRows(sample).some(function (r) { return UNSUPPORTED[r.label]; });
  return !!(sample.vc && (sample.vc[1] + sample.vc[2] > 0));
}
function conversationOf(label, id) {
  for (var c = 0; c < D.conversations.length; c++) {
    var conv = D.conversations[c];
    if (conv.id === id && (!label || sysLabel(conv.sys) === label)) return c;
  }
  return -1;
}
function conversationLink(c, turn) {
  var conv = D.conversations[c], p = new URLSearchParams();
  p.set("tab", "conversations"); p.set("conv", conv.id);
  if (D.systems.length > 1) p.set("csys", sysLabel(conv.sys));
  if (turn !== null && turn !== undefined) p.set("turn", String(turn));
  return "#" + p.toString();
}

function verdictLegend() {
  return el("div", { "class": "legend conv-legend", id: "conv-legend" }, ["supported", "contradicted", "unverifiable", "from_history"].map(function (v) {
    return el("span", { title: LABEL_NOTES[v] }, [el("span", { "class": "swatch v-" + v }), el("strong", { text: v === "from_history" ? "from history" : v }),
      " \u2013 " + LABEL_NOTES[v]]);
  }));
}

function message(role, content, extra) {
  return el("div", { "class": "msg msg-" + role + (extra ? " " + extra : "") }, [
    el("div", { "class": "msg-role", text: role === "system" ? "system" : role }),
    el("div", { dir: "auto", "class": "text-block", text: content })]);
}

// One assistant turn: its scores, its answer with the claims highlighted, and the clicked claim's verdict.
function assistantTurn(index, flagged) {
  var s = D.samples[index], rows = claimRows(s);
  var claimBox = el("div", { "class": "conv-claim", hidden: true });
  var node = el("div", { "class": "msg msg-assistant conv-turn" + (flagged ? " flagged" : ""), "data-turn": String(s.tn), "data-index": String(index) });
  function onClaim(k) {
    var r = rows[k], v = r.verdict || {};
    Array.prototype.forEach.call(node.querySelectorAll(".claim.active"), function (x) { x.classList.remove("active"); });
    Array.prototype.forEach.call(node.querySelectorAll(".claim[data-claim='" + k + "']"), function (x) { x.classList.add("active"); });
    clear(claimBox).hidden = false;
    append(claimBox, [chip(r.label === "from_history" ? "from history" : r.label, "v-" + r.label, LABEL_NOTES[r.label]), " ",
      el("span", { dir: "auto", text: r.claim.text }),
      v.reason ? el("div", { "class": "small muted", text: v.reason }) : null,
      v.quote ? el("blockquote", { dir: "auto", "class": "small", text: v.quote }) : null]);
  }
  var scores = keyMetrics(4).map(function (m) {
    var st = metricStatus(s, m);
    if (st === null || st === "not_last_turn") return null;  // a conversation metric's value is on its last turn
    return el("span", { "class": "conv-score" }, [el("span", { "class": "muted", text: m + " " }), st === "ok" ? fmtValue(metricValue(s, m), m) : chip(st, "status")]);
  });
  var conv = D.conversations[conversationOf(sysLabel(s.sys), s.cv)], said = conv ? conv.kr[s.tn] : "";
  if (retentionFailed(s)) scores.push(chip("knowledge retention failure", "v-contradicted kr-fail", said || null));
  var head = el("button", { type: "button", "class": "conv-turn-head", title: "Open this turn's details", onclick: function () {
    updateLink({ tab: "conversations", turn: s.tn });
    openSample(index);
  } }, [el("strong", { text: "Assistant \u00B7 turn " + s.tn }), el("span", { "class": "conv-scores" }, scores)]);
  append(node, [head, s.x ? el("p", { "class": "empty", text: "Text not embedded (report limited to " + fmtInt(D.coverage.max_detailed) + " detailed samples)." })
    : answerWithClaims(s, rows, onClaim), said ? el("div", { "class": "small kr-note", text: "Knowledge retention: " + said }) : null, claimBox]);
  return node;
}

function transcript(c, matches) {
  var conv = D.conversations[c], out = [];
  conv.turns.forEach(function (index) {
    var s = D.samples[index];
    if (s.hd && out.length === 0) out.push(el("p", { "class": "small muted", text: s.hd + " earlier message(s) were left out of the judges' history (its token budget)." }));
    (s.pre || []).forEach(function (m) { out.push(message(m[0], m[1], m[0] === "system" ? "muted" : null)); });
    if (!s.x) out.push(message("user", s.q || "(none)"));
    out.push(assistantTurn(index, matches(s)));
  });
  return el("div", { "class": "conv-transcript", id: "conv-transcript", "data-conv": conv.id }, out);
}

function conversationsTab(root) {
  var state = { filter: "", system: "" }, current = -1;
  var list = el("ul", { "class": "conv-list", id: "conv-list" }), pane = el("div", { "class": "conv-pane" });
  var count = el("span", { "class": "count", id: "conv-count" });
  function matches(s) {
    if (state.filter === "unsupported") return unsupportedTurn(s);
    if (state.filter === "retention") return retentionFailed(s);
    return false;
  }
  function shown(c) {
    var conv = D.conversations[c];
    if (state.system !== "" && String(conv.sys) !== state.system) return false;
    return !state.filter || conv.turns.some(function (i) { return matches(D.samples[i]); });
  }
  function open(c, turn) {
    current = c;
    Array.prototype.forEach.call(list.children, function (li) { li.classList.toggle("active", Number(li.getAttribute("data-c")) === c); });
    clear(pane).appendChild(transcript(c, matches));
    if (turn === null || turn === undefined) return;
    var target = pane.querySelector(".conv-turn[data-turn='" + turn + "']");
    if (target) { target.classList.add("target"); target.scrollIntoView({ block: "center" }); }
  }
  function select(c, turn) { open(c, turn); updateLink({ tab: "conversations", conv: D.conversations[c].id, csys: D.systems.length > 1 ? sysLabel(D.conversations[c].sys) : null, turn: turn }); }
  function apply() {
    clear(list);
    var n = 0;
    D.conversations.forEach(function (conv, c) {
      if (!shown(c)) return;
      n += 1;
      var flagged = conv.turns.filter(function (i) { return matches(D.samples[i]); }).length;
      list.appendChild(el("li", { "data-c": String(c), "data-conv": conv.id, "class": c === current ? "active" : null, onclick: function () { select(c, null); } }, [
        el("span", { "class": "mono", text: conv.id }), D.systems.length > 1 ? el("span", { "class": "muted", text: sysLabel(conv.sys) }) : null,
        el("span", { "class": "small muted", text: plural(conv.turns.length, "turn") }), flagged ? chip(String(flagged), "v-contradicted", "turns matching the filter") : null]));
    });
    count.textContent = n + " of " + D.conversations.length + " conversations";
    if (current >= 0 && shown(current)) open(current, null);
    else clear(pane).appendChild(el("p", { "class": "empty", text: n ? "Pick a conversation." : "No conversation matches." }));
  }
  var filters = [["", "All conversations"], ["unsupported", "Any unsupported claim (contradicted or unverifiable)"]]
    .concat(hasRetention() ? [["retention", "Knowledge-retention failures"]] : []);
  var filterBox = selectBox(filters, "", function (v) { state.filter = v; apply(); }, "Show");
  filterBox.querySelector("select").id = "conv-filter";
  root.appendChild(el("h2", { text: "Conversations" }));
  root.appendChild(el("div", { "class": "card" }, [el("div", { "class": "toolbar", id: "conv-filters" }, [filterBox,
    D.systems.length > 1 ? selectBox(systemOptions(), "", function (v) { state.system = v; apply(); }, "System") : null, count]), verdictLegend()]));
  root.appendChild(el("div", { "class": "conv-layout" }, [el("div", { "class": "card conv-side" }, list), el("div", { "class": "card conv-main" }, pane)]));
  apply();
  var p = linkParams(), c = p.has("conv") ? conversationOf(p.get("csys"), p.get("conv")) : -1;
  if (c >= 0) open(c, linkNumber(p, "turn"));
  else if (p.has("conv")) linkNotice("The linked conversation (" + p.get("conv") + ") is not in this report.");
  else if (D.conversations.length) open(0, null);
}
registerTab({ id: "conversations", title: "Conversations", order: 55, render: conversationsTab, when: hasConversations });

// In a turn's drawer: the conversation so far (the earlier turns the page holds) and a link to the transcript.
registerSampleSection({ id: "conversation", order: 5, when: function (s) { return s.cv !== undefined && hasConversations(); }, render: function (s) {
  var c = conversationOf(sysLabel(s.sys), s.cv), earlier = [];
  if (c >= 0) D.conversations[c].turns.forEach(function (i) {
    var t = D.samples[i];
    if (t.tn >= s.tn) return;
    (t.pre || []).forEach(function (m) { earlier.push(message(m[0], m[1], m[0] === "system" ? "muted" : null)); });
    if (!t.x) earlier.push(message("user", t.q), message("assistant", t.a));
  });
  (s.pre || []).forEach(function (m) { earlier.push(message(m[0], m[1], m[0] === "system" ? "muted" : null)); });
  return el("div", { "class": "card", id: "sample-conversation" }, [el("h3", { text: "Conversation " + s.cv + ", turn " + s.tn }),
    earlier.length ? el("div", { "class": "conv-transcript" }, earlier) : el("p", { "class": "empty", text: "No earlier turns." }),
    c >= 0 ? el("a", { href: conversationLink(c, s.tn), id: "sample-conversation-link", text: "Open in the conversation view" }) : null, verdictLegend()]);
} });
