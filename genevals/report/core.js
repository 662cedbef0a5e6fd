// core.js: data, DOM helpers, formatting, the registry of tabs, sections and hooks, the drawer and tooltip.
// Every string from the data reaches the page through textContent or setAttribute, never as markup.
var D = JSON.parse(document.getElementById("genevals-data").textContent);
var SVGNS = "http://www.w3.org/2000/svg";
var PALETTE = ["#0b5cad", "#d1560b", "#2da44e", "#8250df", "#bf3989", "#1b7c83", "#9a6700", "#57606a"];
var VERDICTS = ["supported", "contradicted", "unverifiable"];
var VERDICT_COLORS = { supported: "#2da44e", contradicted: "#c4262e", unverifiable: "#d4a72c", from_history: "#6e7781" };
var KEY_METRICS = ["faithfulness", "token_f1", "bertscore_f1", "rougeL", "exact_match", "mrr", "recall@5",
  "ndcg@10", "hit_rate@5", "contradiction_rate"];
var METRIC = {}, METRIC_INDEX = {};
D.metrics.forEach(function (m, i) { METRIC[m.name] = m; METRIC_INDEX[m.name] = i; });

// Fill in what the builder left out to keep the file small (claim text and quotes are slices of the texts).
// A sample with x: 1 came without its texts (the report embeds at most D.coverage.max_detailed of them).
D.samples.forEach(function (s) {
  if (s.x) { s.q = ""; s.a = ""; s.ctx = []; s.refs = []; s.rel = null; }
  if (!s.j) return;
  s.j.claims.forEach(function (c) {
    if (c.text === undefined) c.text = c.spans.length ? s.a.slice(c.spans[0][0], c.spans[0][1]) : "";
  });
  s.j.verdicts.forEach(function (v) {
    if (v.context_index === undefined || !s.ctx[v.context_index]) v.context_index = null;
    if (v.quote_span === undefined || v.context_index === null) v.quote_span = null;
    if (v.quote === undefined) v.quote = v.quote_span ? s.ctx[v.context_index].text.slice(v.quote_span[0], v.quote_span[1]) : "";
    v.reason = v.reason || "";
    v.missing = !!v.missing;
  });
});

function setAttrs(node, attrs) {
  if (!attrs) return node;
  Object.keys(attrs).forEach(function (key) {
    var value = attrs[key];
    if (value === null || value === undefined || value === false) return;
    if (key === "text") node.textContent = String(value);
    else if (key === "style" && typeof value === "object") Object.assign(node.style, value);
    else if (key.slice(0, 2) === "on" && typeof value === "function") node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  });
  return node;
}

function append(node, children) {
  if (children === null || children === undefined || children === false) return node;
  if (Array.isArray(children)) { children.forEach(function (c) { append(node, c); }); return node; }
  if (typeof children === "string" || typeof children === "number") node.appendChild(document.createTextNode(String(children)));
  else node.appendChild(children);
  return node;
}

function el(tag, attrs, children) { return append(setAttrs(document.createElement(tag), attrs), children); }
function svgEl(tag, attrs, children) { return append(setAttrs(document.createElementNS(SVGNS, tag), attrs), children); }
function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

function fmt(v, digits) {
  if (v === null || v === undefined || isNaN(v)) return "\u2013";
  var d = digits === undefined ? 3 : digits;
  if (Math.abs(v) >= 1000) return v.toFixed(0);
  return Number(v).toFixed(d);
}
// a sample's value of a metric: a count or rank (declared integer) as a whole number, never "9.0000"
function fmtValue(v, name, digits) {
  var m = METRIC[name];
  return m && m.integer && v !== null && v !== undefined && Number.isInteger(v) ? String(v) : fmt(v, digits);
}
function fmtP(p) { return p === null || p === undefined ? "\u2013" : (p < 0.001 ? "< 0.001" : p.toFixed(3)); }
function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
function sysLabel(i) { return D.systems[i] ? D.systems[i].label : String(i); }
function sysColor(i) { return PALETTE[i % PALETTE.length]; }
// sample.v holds scored values aligned with D.metrics; unscored ones are in sample.st as [status, reason].
function metricValue(sample, name) { var v = sample.v[METRIC_INDEX[name]]; return v === undefined ? null : v; }
function metricStatus(sample, name) {
  if (metricValue(sample, name) !== null) return "ok";
  return sample.st && sample.st[name] ? sample.st[name][0] : null;
}
// Each metric's facts come from its declaration in the run folder (outputs.json): lower_better, unit (on a
// 0-1 scale), banded.
function isUnit(name) { var m = METRIC[name]; return !m || m.unit; }
function keyMetrics(limit) {
  var present = D.metrics.map(function (m) { return m.name; });
  var out = KEY_METRICS.filter(function (n) { return present.indexOf(n) >= 0; });
  present.forEach(function (n) { if (out.indexOf(n) < 0 && n !== "first_relevant_rank") out.push(n); });
  return out.slice(0, limit);
}

// The band of a mean (bands.py's band(), same rule): none below D.min_coverage of scored samples; a
// lower-is-better mean is read against its own, stricter limits (b.max), never as 1 - mean.
function coverageOf(s) {
  var total = s ? (s.scored || 0) + (s.unscored || 0) : 0;
  return total ? s.scored / total : null;
}
function bandOf(name, mean, s) {
  var m = METRIC[name];
  if (mean === null || mean === undefined || (m && !m.banded)) return null;
  var covered = coverageOf(s);
  if (covered !== null && covered < D.min_coverage) return null;
  if (mean < 0 || mean > 1 + 1e-9) return null;
  var i;
  if (m && m.lower_better) {
    for (i = 0; i < D.bands.length; i++) if (mean <= D.bands[i].max + 1e-12) return D.bands[i].name;
    return D.bands[D.bands.length - 1].name;
  }
  for (i = 0; i < D.bands.length; i++) if (mean >= D.bands[i].min) return D.bands[i].name;
  return D.bands[D.bands.length - 1].name;
}
// A threshold: {limit, kind}; fail_under is a minimum, fail_over a maximum.
function thresholdPasses(t, mean) {
  return mean !== null && mean !== undefined && (t.kind === "fail_over" ? mean <= t.limit : mean >= t.limit);
}
function thresholdText(t) { return (t.kind === "fail_over" ? "\u2264 " : "\u2265 ") + t.limit; }

// A small "i" in a circle, drawn as SVG: the U+24D8 character it replaces has no glyph in the fonts Debian's Chromium
// ships with (it drew an empty box). What it stands for is in its parent's title.
function infoIcon() {
  return svgEl("svg", { "class": "info-icon", viewBox: "0 0 16 16", width: "12", height: "12", "aria-hidden": "true" }, [
    svgEl("circle", { cx: "8", cy: "8", r: "7", fill: "none", stroke: "currentColor", "stroke-width": "1.5" }),
    svgEl("rect", { x: "7.1", y: "6.5", width: "1.8", height: "5.5", fill: "currentColor" }),
    svgEl("circle", { cx: "8", cy: "4.3", r: "1.1", fill: "currentColor" })]);
}
function chip(text, cls, title) { return el("span", { "class": "chip " + (cls || ""), title: title || null, text: text }); }
function verdictChip(label) { return chip(label, "v-" + label); }

// Claims and verdicts of one sample: [{claim, verdict, label}] in claim order.
function claimRows(sample) {
  if (!sample.j) return [];
  var byClaim = {};
  sample.j.verdicts.forEach(function (v) { if (v.claim_index !== null && !(v.claim_index in byClaim)) byClaim[v.claim_index] = v; });
  return sample.j.claims.map(function (c) {
    var v = byClaim[c.index] || null;
    return { claim: c, verdict: v, label: v ? v.label : "unverifiable" };
  });
}
function verdictCounts(sample) {
  var counts = { supported: 0, contradicted: 0, unverifiable: 0, from_history: 0 };
  claimRows(sample).forEach(function (r) { counts[r.label] += 1; });
  return counts;
}
// Claim counts by verdict: from the claims of a detailed sample, else the counts the builder kept (s.vc).
function sampleVerdicts(sample) {
  if (sample.j) return verdictCounts(sample);
  return sample.vc ? { supported: sample.vc[0], contradicted: sample.vc[1], unverifiable: sample.vc[2] } : null;
}
// With judge repeats: how many of a detailed sample's claims the repeats disagreed on (verdict.rep), else null.
function unstableClaims(sample) {
  if (!sample.j || !sample.j.verdicts.some(function (v) { return v.rep; })) return null;
  return sample.j.verdicts.filter(function (v) {
    var seen = {};
    (v.rep || []).forEach(function (l) { if (l) seen[l] = 1; });
    return Object.keys(seen).length > 1;
  }).length;
}
function hasRepeats() { return D.systems.some(function (s) { return !!s.repeats; }); }
function hasJudge() { return D.verdicts.some(function (v) { return v.judged > 0; }); }
function fmtInt(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
// Whether some samples came without texts, or without even their values (the table then holds fewer rows).
function textsTrimmed() { return D.coverage.detailed < D.coverage.total; }
function rowsTrimmed() { return D.coverage.embedded < D.coverage.total; }
function resultsLine(sample) {
  var run = D.runs[D.systems[sample.sys] ? D.systems[sample.sys].run : 0];
  // A conversation's turns share one line: the turn is found by its conversation and number, not a line number.
  var where = sample.cv !== undefined ? "conversation " + sample.cv + ", turn " + sample.tn : "line " + sample.line;
  return (run ? run.path + "/" : "") + "results.jsonl " + where + (sample.origin ? " / input " + sample.origin : "");
}
function relevanceGrade(sample, ctx) {
  if (!sample.rel) return null;
  if (ctx.id !== null && ctx.id in sample.rel) return sample.rel[ctx.id];
  if (ctx.doc_id !== null && ctx.doc_id in sample.rel) return sample.rel[ctx.doc_id];
  if (String(ctx.rank) in sample.rel) return sample.rel[String(ctx.rank)];
  return 0;
}

// Text with [start, end) marked; offsets are UTF-16, as the builder converted them.
function markedText(text, start, end, cls) {
  var node = el("div", { dir: "auto", "class": "text-block" });
  if (start === null || start === undefined || start < 0 || end > text.length || start >= end) {
    node.textContent = text;
    return node;
  }
  append(node, [text.slice(0, start), el("mark", { "class": cls || null, text: text.slice(start, end) }), text.slice(end)]);
  return node;
}

function selectBox(options, value, onchange, label) {
  var select = el("select", { onchange: function () { onchange(select.value); } });
  options.forEach(function (o) {
    var opt = el("option", { value: o[0], text: o[1] });
    if (o[0] === value) opt.selected = true;
    select.appendChild(opt);
  });
  return label ? el("label", null, [label, select]) : select;
}

function numberInput(value, onchange, label) {
  var input = el("input", { type: "number", step: "0.05", value: value === null ? "" : value, placeholder: "any" });
  input.addEventListener("input", function () { onchange(input.value === "" ? null : Number(input.value)); });
  return el("label", null, [label, input]);
}

function metricOptions(withAny) {
  var opts = withAny ? [["", "(any metric)"]] : [];
  return opts.concat(D.metrics.map(function (m) { return [m.name, m.name]; }));
}

function systemOptions() {
  return [["", "All systems"]].concat(D.systems.map(function (s, i) { return [String(i), s.label]; }));
}

// A pager under a table: calls render(pageIndex); returns {update(total)}.
function makePager(container, pageSize, render) {
  var info = el("span", { "class": "count" });
  var prev = el("button", { type: "button", "class": "btn", text: "Previous" });
  var next = el("button", { type: "button", "class": "btn", text: "Next" });
  var state = { page: 0, total: 0 };
  function pages() { return Math.max(1, Math.ceil(state.total / pageSize)); }
  function go(p) {
    state.page = Math.min(Math.max(0, p), pages() - 1);
    info.textContent = "Page " + (state.page + 1) + " of " + pages();
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages() - 1;
    render(state.page);
  }
  function jump(p) { go(p); if (container.scrollIntoView) container.scrollIntoView({ block: "start" }); }
  prev.addEventListener("click", function () { jump(state.page - 1); });
  next.addEventListener("click", function () { jump(state.page + 1); });
  append(container, el("div", { "class": "pager" }, [prev, info, next]));
  return { update: function (total, keepPage) { state.total = total; go(keepPage ? state.page : 0); } };
}

// Sort rows in place by key(row); nulls always last.
function sortRows(rows, key, dir) {
  rows.sort(function (a, b) {
    var x = key(a), y = key(b);
    if (x === null || x === undefined) return (y === null || y === undefined) ? 0 : 1;
    if (y === null || y === undefined) return -1;
    if (typeof x === "string" || typeof y === "string") return dir * String(x).localeCompare(String(y));
    return dir * (x - y);
  });
  return rows;
}

var tooltip = document.getElementById("tooltip");
function attachTip(node, text) {
  node.addEventListener("mouseenter", function () { tooltip.textContent = text; tooltip.hidden = false; });
  node.addEventListener("mousemove", function (e) {
    tooltip.style.left = Math.min(e.clientX + 12, window.innerWidth - 330) + "px";
    tooltip.style.top = (e.clientY + 12) + "px";
  });
  node.addEventListener("mouseleave", function () { tooltip.hidden = true; });
  return node;
}

var drawer = document.getElementById("drawer");
var drawerBody = document.getElementById("drawer-body");
var backdrop = document.getElementById("drawer-backdrop");
function openDrawer(title, content) {
  document.getElementById("drawer-title").textContent = title;
  clear(drawerBody);
  append(drawerBody, content);
  drawer.hidden = false;
  backdrop.hidden = false;
  drawerBody.scrollTop = 0;
}
function closeDrawer() { drawer.hidden = true; backdrop.hidden = true; }

// The registry: every tab, every section of a tab or of a sample's drawer, and every hook is registered once
// under an id by the script that owns it, and drawn or run in its declared order. Nothing redefines what another
// script defined (which made the load order decide what the page showed); a second registration of an id is
// refused and shown on the page, never a silent override.
var REGISTRY = { tabs: [], tabSections: {}, sampleSections: [], hooks: {} };
var rendered = {};
function registryError(text) {
  console.error("genevals report: " + text);
  var main = document.getElementById("main"), note = document.getElementById("registry-errors");
  if (!note) note = main.insertBefore(el("div", { "class": "warning", id: "registry-errors", role: "alert" },
    el("strong", { text: "This page's scripts are inconsistent (a bug in genevals):" })), main.firstChild);
  note.appendChild(el("div", { text: text }));
}
// Add spec to list (kept sorted by order, then by registration) unless its id is taken; what names the kind.
function addOnce(list, spec, what) {
  if (!spec || typeof spec.id !== "string" || !spec.id) { registryError(what + " registered without an id"); return false; }
  if (list.some(function (x) { return x.id === spec.id; })) {
    registryError(what + " '" + spec.id + "' is registered twice; the second registration is ignored");
    return false;
  }
  list.push({ id: spec.id, order: spec.order || 0, seq: list.length, spec: spec });
  list.sort(function (a, b) { return a.order - b.order || a.seq - b.seq; });
  return true;
}
function active(entry, args) { return !entry.spec.when || entry.spec.when.apply(null, args || []); }
// A tab: {id, title, order, render(root), when()}; its render is its section of order 0 (registerTabSection).
function registerTab(spec) {
  if (addOnce(REGISTRY.tabs, spec, "tab") && spec.render) registerTabSection(spec.id, { id: spec.id, order: 0, render: spec.render });
}
// A part of tab's panel: {id, order, render(root), when()}, drawn into the panel by order (< 0: before the tab's own).
function registerTabSection(tab, spec) {
  addOnce(REGISTRY.tabSections[tab] = REGISTRY.tabSections[tab] || [], spec, "tab '" + tab + "' section");
}
// A card at the end of a detailed sample's drawer: {id, order, render(sample, index) -> node or null, when(sample)}.
function registerSampleSection(spec) { addOnce(REGISTRY.sampleSections, spec, "sample section"); }
// A behaviour run at a named moment ("tab-switch", "sample-opened", "review-changed"): {id, order, run(...)}.
function registerHook(name, spec) { addOnce(REGISTRY.hooks[name] = REGISTRY.hooks[name] || [], spec, name + " hook"); }
function runHooks(name) {
  var args = Array.prototype.slice.call(arguments, 1);
  (REGISTRY.hooks[name] || []).forEach(function (h) { h.spec.run.apply(null, args); });
}
function sampleSections(sample, index) {
  return REGISTRY.sampleSections.filter(function (s) { return active(s, [sample]); })
    .map(function (s) { return s.spec.render(sample, index); });
}
function shownTabs() { return REGISTRY.tabs.filter(function (t) { return active(t); }).map(function (t) { return t.id; }); }
function hasTab(name) { return shownTabs().indexOf(name) >= 0; }

// The tab buttons and panels, from the registry (main.js calls this once every script has registered its tabs).
function drawTabs() {
  var nav = document.querySelector(".tabs"), main = document.getElementById("main");
  REGISTRY.tabs.filter(function (t) { return active(t); }).forEach(function (t) {
    var title = t.spec.title;
    nav.appendChild(el("button", { type: "button", role: "tab", "data-tab": t.id, "aria-selected": "false", text: title,
      onclick: function () { showTab(t.id); } }));
    main.appendChild(el("section", { id: "tab-" + t.id, "class": "tab", role: "tabpanel", "aria-label": title, hidden: true }));
  });
}
// Draw a tab again next time it is shown (links.js: the address changed its filters).
function resetTab(name) {
  if (!rendered[name]) return;
  rendered[name] = false;
  clear(document.getElementById("tab-" + name));
}
function showTab(name) {
  runHooks("tab-switch", name);
  Array.prototype.forEach.call(document.querySelectorAll(".tabs button"), function (b) {
    b.setAttribute("aria-selected", b.getAttribute("data-tab") === name ? "true" : "false");
  });
  shownTabs().forEach(function (key) { document.getElementById("tab-" + key).hidden = key !== name; });
  if (!rendered[name]) {
    rendered[name] = true;
    var root = document.getElementById("tab-" + name);
    (REGISTRY.tabSections[name] || []).forEach(function (s) { if (active(s)) s.spec.render(root); });
  }
}
