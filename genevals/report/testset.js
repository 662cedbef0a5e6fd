// The test-set card's page (genevals/report/testset.py): every figure is read from the embedded card.json and
// shown where it is (fig(): its path in data-path, its exact value in the title); the page computes no number.
// Text from the card (document names, types, questions) goes in with textContent only.
var card = JSON.parse(document.getElementById("genevals-card").textContent);
var main = document.getElementById("main");

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) { e.className = cls; }
  if (text !== undefined && text !== null) { e.textContent = String(text); }
  return e;
}

function add(parent) {
  for (var i = 1; i < arguments.length; i++) {
    var c = arguments[i];
    parent.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return parent;
}

function at(path) {
  var v = card;
  for (var i = 0; i < path.length; i++) {
    if (v === null || typeof v !== "object" || !Object.prototype.hasOwnProperty.call(v, path[i])) { return undefined; }
    v = v[path[i]];
  }
  return v;
}

function isNum(v) { return typeof v === "number" && isFinite(v); }

// 4 decimals at most, trailing zeros dropped; whole numbers as they are
function fmt(v) { return Number.isInteger(v) ? String(v) : String(Number(v.toFixed(4))); }

function isNotMeasured(v) { return v !== null && typeof v === "object" && typeof v.status === "string"; }

function fig(path) {
  var v = at(path);
  var s;
  if (isNum(v)) {
    s = el("span", "fig num", fmt(v));
    s.title = String(v);
  } else if (isNotMeasured(v)) {
    s = el("span", "ts-nm", v.status.replace(/_/g, " ") + (v.reason ? ": " + v.reason : ""));
    s.setAttribute("data-status", v.status);
  } else if (v === undefined || v === null) {
    s = el("span", "ts-nm", v === null ? "none" : "not in card.json");
  } else {
    s = el("span", "", String(v));
  }
  s.setAttribute("data-path", JSON.stringify(path));
  return s;
}

// a figure and its n: "0.97 (n = 30)", or the not-measured line alone
function figN(path, key) {
  if (isNotMeasured(at(path)) || at(path) === undefined) { return fig(path); }
  var span = el("span");
  var v = at(path.concat([key]));
  add(span, fig(path.concat([key])));
  if (isNum(v) && at(path.concat(["n"])) !== undefined) { add(span, " (n = ", fig(path.concat(["n"])), ")"); }
  return span;
}

function section(title, id) {
  var s = el("section", "card");
  s.id = id;
  add(s, el("h2", "", title));
  main.appendChild(s);
  return s;
}

function table(headers, rows) {
  var t = el("table");
  var tr = el("tr");
  headers.forEach(function (h) { tr.appendChild(el("th", "", h)); });
  add(t, add(el("thead"), tr));
  var body = el("tbody");
  rows.forEach(function (row) {
    var r = el("tr");
    row.forEach(function (cell) {
      var td = el("td");
      if (typeof cell === "string") { td.textContent = cell; td.setAttribute("dir", "auto"); } else { td.appendChild(cell); }
      r.appendChild(td);
    });
    body.appendChild(r);
  });
  t.appendChild(body);
  return add(el("div", "table-wrap"), t);
}

function keys(obj) { return obj && typeof obj === "object" ? Object.keys(obj) : []; }

function answer() {
  var s = section("The answer", "ts-answer");
  var line = el("p", "ts-answer");
  if (at(["contract"]) === undefined) {
    add(line, "card.json has no contract (written by an older genevals)");
  } else {
    var met = at(["contract", "met"]) === true;
    add(line, "kept ", fig(["contract", "kept"]), " of ", fig(["contract", "requested"]), " requested: ",
        el("span", met ? "ts-met" : "ts-unmet", met ? "contract met" : "contract not met"));
    line.setAttribute("data-met", String(met));
  }
  add(s, line, add(el("p", "muted"), "attempts ", fig(["attempts"]), " (at most ", fig(["max_attempts"]),
      "); generator ", fig(["generator"]), "; gates ", fig(["gates"]), "; seed ", fig(["seed"])));
  if (at(["items_are"]) !== undefined) { add(s, add(el("p"), "items: ", fig(["items_are"]))); }
}

function caveats() {
  var lines = [];
  (at(["not_good_for"]) || []).forEach(function (_, i) {
    lines.push(add(el("span"), "not good for: ", fig(["not_good_for", i])));
  });
  (at(["ranking_agreement", "says"]) || []).forEach(function (_, i) {
    lines.push(fig(["ranking_agreement", "says", i]));
  });
  if (isNotMeasured(at(["cost_per_kept_item", "gates"]))) { lines.push(fig(["cost_per_kept_item", "gates"])); }
  if (!lines.length) { return; }
  var s = section("Caveats", "ts-caveats");
  var ul = el("ul", "ts-caveats");
  lines.forEach(function (l) { ul.appendChild(add(el("li"), l)); });
  s.appendChild(ul);
  var agreement = at(["ranking_agreement", "kendall_tau_vs_human"]);
  if (agreement) {
    var d = add(el("details"), el("summary", "", "ranking agreement with people's ranking (Kendall tau, 95% CI)"));
    var rows = [];
    keys(agreement).forEach(function (metric) {
      keys(agreement[metric]).forEach(function (queries) {
        var p = ["ranking_agreement", "kendall_tau_vs_human", metric, queries];
        rows.push([metric, queries, fig(p.concat(["tau"])),
                   add(el("span"), "[", fig(p.concat(["ci95", 0])), ", ", fig(p.concat(["ci95", 1])), "]")]);
      });
    });
    add(d, table(["measure", "queries", "tau", "95% CI"], rows),
        add(el("p", "muted small"), "n = ", fig(["ranking_agreement", "n"]), " queries; ",
            fig(["ranking_agreement", "collection"]), "; ", fig(["ranking_agreement", "benchmark"])));
    s.appendChild(d);
  }
}

function types() {
  var s = section("Requested and kept, per type", "ts-types");
  var names = keys(at(["requested"]));
  keys(at(["kept"])).forEach(function (t) { if (names.indexOf(t) < 0) { names.push(t); } });
  add(s, table(["type", "requested", "kept", "rejected, by reason"], names.map(function (t) {
    var reasons = el("span");
    keys(at(["rejections_by_type", t])).forEach(function (r, i) {
      add(reasons, i ? ", " : "", r + " ", fig(["rejections_by_type", t, r]));
    });
    return [t, fig(["requested", t]), at(["kept", t]) === undefined ? el("span", "", "0") : fig(["kept", t]), reasons];
  })));
}

function rejections() {
  var s = section("Rejections, by reason", "ts-rejections");
  var reasons = keys(at(["rejections"]));
  if (!reasons.length) { add(s, add(el("p"), "no attempt was rejected (of ", fig(["attempts"]), " attempts)")); return; }
  add(s, table(["reason", "attempts rejected", "what it means"], reasons.map(function (r) {
    return [r, fig(["rejections", r]), at(["gate_meanings", r]) === undefined ? "" : fig(["gate_meanings", r])];
  })), add(el("p", "muted small"), "over ", fig(["attempts"]), " attempts"));
}

function gates() {
  // measured on people's data by the project's benchmarks, not on this set: said apart from this set's counts
  var says = at(["gate_accuracy", "says"]);
  if (!says) { return; }
  var s = section("The gates' accuracy, measured on people's data", "ts-gates");
  var ul = el("ul", "ts-caveats");
  says.forEach(function (_, i) { ul.appendChild(add(el("li"), fig(["gate_accuracy", "says", i]))); });
  s.appendChild(ul);
  add(s, add(el("p", "muted small"), fig(["gate_accuracy", "measured"])));
}

function coverage() {
  var s = section("Coverage", "ts-coverage");
  ["documents", "chunks"].forEach(function (k) {
    add(s, add(el("p"), k + " cited by a kept item: ", fig(["coverage", k, "cited"]), " of ",
               fig(["coverage", k, "n"])));
  });
}

function diversity() {
  var s = section("Diversity of the questions, beside the lead-8 baseline", "ts-diversity");
  var rows = [["distinct_1", "distinct unigrams / unigrams (higher: more diverse)"],
              ["distinct_2", "distinct bigrams / bigrams (higher: more diverse)"],
              ["self_bleu", "mean BLEU of each question against the others (higher: less diverse)"],
              ["mean_pairwise_cosine", "mean MiniLM cosine over pairs (higher: less diverse)"]];
  add(s, table(["measure", "questions", "baseline: first 8 words of the chunk", "meaning"], rows.map(function (r) {
    return [r[0], figN(["diversity", "questions", r[0]], "value"), figN(["diversity", "baseline_lead_8", r[0]], "value"),
            r[1]];
  })));
}

function leakage() {
  var s = section("Leakage and difficulty", "ts-leakage");
  add(s, add(el("p"), "question-chunk ROUGE-L F, mean: ", figN(["leakage", "question_chunk_rougeL"], "mean")));
  var ranks = [["bm25_rank_of_source_chunk", "BM25"], ["dense_rank_of_source_chunk", "dense (MiniLM)"]];
  add(s, table(["rank of the source chunk", "MRR", "share at rank 1", "share within 10", "median rank", "n"],
    ranks.map(function (r) {
      var p = ["leakage", r[0]];
      if (isNotMeasured(at(p)) || at(p) === undefined) {
        var nm = fig(p);
        return [r[1], nm, "", "", "", ""];
      }
      return [r[1], fig(p.concat(["mrr"])), fig(p.concat(["at_1"])), fig(p.concat(["within_10"])),
              fig(p.concat(["median_rank"])), fig(p.concat(["n"]))];
    })));
  add(s, add(el("p", "ts-sub"), "share answerable without context: ",
             figN(["answerable_without_context"], "share")));
}

function languages() {
  var s = section("Languages", "ts-languages");
  add(s, table(["language", "kept items"], keys(at(["languages"])).map(function (l) {
    return [l, fig(["languages", l])];
  })), add(el("p", "muted small"), "n = ", fig(["contract", "kept"]), " kept items"));
}

function cost() {
  var s = section("Cost per kept item", "ts-cost");
  var c = at(["cost_per_kept_item"]);
  if (c === undefined || isNotMeasured(c)) { add(s, add(el("p"), fig(["cost_per_kept_item"]))); return; }
  var names = ["requests", "cached_requests", "prompt_tokens", "completion_tokens", "cost_usd"];
  var per = ["cost_per_kept_item", "per_kept_item"];
  function part(name, k, first) {
    var p = ["cost_per_kept_item", name];
    if (at(p) === undefined) { return ""; }
    if (isNotMeasured(at(p))) { return first ? fig(p) : ""; }
    return fig(p.concat([k]));
  }
  add(s, table(["", "per kept item", "total", "generator", "judge gates"], names.map(function (k, i) {
    return [k, isNotMeasured(at(per)) ? (i ? "" : fig(per)) : fig(per.concat([k])),
            fig(["cost_per_kept_item", "total", k]), part("generator", k, i === 0), part("gates", k, i === 0)];
  })));
  if (!isNotMeasured(at(per))) { add(s, add(el("p", "muted small"), "n = ", fig(per.concat(["n"])), " kept items")); }
  ["note", "scope"].forEach(function (k) {
    if (at(["cost_per_kept_item", k]) !== undefined) { add(s, add(el("p", "muted"), fig(["cost_per_kept_item", k]))); }
  });
}

function examples() {
  var s = section("Examples", "ts-examples");
  var kept = at(["examples", "kept"]) || [];
  var rejected = at(["examples", "rejected"]) || [];
  add(s, el("h3", "", "kept"), table(["id", "type", "question", "reference"], kept.map(function (e) {
    return [String(e.id), String(e.type), el("span", "ts-example", e.question), el("span", "ts-example", e.reference)];
  })));
  add(s, el("h3", "ts-sub", "rejected"), table(["id", "type", "question", "rejection", "reason"], rejected.map(function (e) {
    return [String(e.id), String(e.type), el("span", "ts-example", e.question), String(e.rejection),
            el("span", "ts-example", e.reason)];
  })));
  s.querySelectorAll(".ts-example").forEach(function (e) { e.setAttribute("dir", "auto"); });
}

function review() {
  var s = section("Human review", "ts-review");
  var h = at(["human_review"]);
  if (h === undefined) {
    add(s, el("p", "muted", "no human review yet: genevals review on this folder with --queue N measures the " +
                             "share of valid items on a seeded sample"));
    return;
  }
  var p = ["human_review"];
  if (isNotMeasured(h) && h.status !== "ok") { add(s, add(el("p"), fig(p))); }
  if (isNum(at(p.concat(["valid_item_rate"])))) {
    add(s, add(el("p", "ts-answer"), "valid items: ", fig(p.concat(["valid_item_rate"])), " [",
               fig(p.concat(["ci95", 0])), ", ", fig(p.concat(["ci95", 1])), "] (n = ", fig(p.concat(["n"])), ")"));
  }
  add(s, add(el("p", "muted"), "valid ", fig(p.concat(["valid"])), ", invalid ", fig(p.concat(["invalid"])),
             ", unsure ", fig(p.concat(["unsure"])), ", undecided ", fig(p.concat(["undecided"])), "; queue of ",
             fig(p.concat(["queue_size"])), " drawn from ", fig(p.concat(["items"])), " kept items (seed ",
             fig(p.concat(["seed"])), ", ", fig(p.concat(["date"])), ")"));
  var reasons = keys(at(p.concat(["invalid_reasons"])));
  if (reasons.length) {
    add(s, table(["invalid because", "items"], reasons.map(function (r) {
      return [r, fig(p.concat(["invalid_reasons", r]))];
    })));
  }
  var r = p.concat(["rejected"]);
  if (at(r) !== undefined) {
    var line = add(el("p", "ts-sub"), "rejected items judged valid (what the gates threw away): ");
    if (isNum(at(r.concat(["rate"])))) {
      add(line, fig(r.concat(["rate"])), " [", fig(r.concat(["ci95", 0])), ", ", fig(r.concat(["ci95", 1])), "]");
    } else {
      add(line, "no verdict yet");
    }
    add(s, add(line, " (n = ", fig(r.concat(["n"])), " of a queue of ", fig(r.concat(["queue"])), ")"));
  }
}

function source() {
  var s = section("Source", "ts-source");
  add(s, add(el("p"), "documents: ", fig(["documents"]), "; skipped when read: ", fig(["documents_skipped"]),
             "; chunks dropped as low-information: ", fig(["chunks_dropped"])));
}

[answer, caveats, types, rejections, gates, coverage, diversity, leakage, languages, cost, review, examples, source]
  .forEach(function (draw) { draw(); });
document.documentElement.setAttribute("data-ready", "true");
