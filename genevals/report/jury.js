// jury.js: a jury of judges (--jury) in the report: each system's agreement between judges (Fleiss' and pairwise
// Cohen's kappa, disagreement rate, cost per judge) on the overview; in a sample's drawer, the split claims marked
// with which judge said what, and every judge's verdict per claim. The samples table's "Has split claims" filter
// reads splitClaims. A tie between judges is unverifiable (the policy line says so).

function hasJury() { return D.systems.some(function (s) { return !!s.jury; }); }
function isSplit(v) {
  var seen = {};
  Object.keys(v.jy || {}).forEach(function (n) { if (v.jy[n]) seen[v.jy[n]] = 1; });
  return Object.keys(seen).length > 1;
}
// How many of a detailed sample's claims its judges split on; null without a jury's verdicts.
function splitClaims(sample) {
  if (!sample.j || !sample.j.verdicts.some(function (v) { return v.jy; })) return null;
  return sample.j.verdicts.filter(isSplit).length;
}
function whoSaid(v) {
  return Object.keys(v.jy).map(function (n) { return n + ": " + (v.jy[n] || "failed"); }).join(" \u00b7 ");
}
function kappaText(k) { return k === null || k === undefined ? "\u2013" : fmt(k, 2); }

function juryOverview(root) {
  var rows = [], policy = null;
  D.systems.forEach(function (s) {
    Object.keys(s.jury || {}).forEach(function (name) {
      var j = s.jury[name], ci = j.ci;
      policy = policy || j.policy;
      rows.push(el("tr", { "data-system": s.label, "data-output": name }, [
        el("td", { text: s.label }), el("td", { "class": "mono", text: name }), el("td", { text: j.judges.join(", ") }),
        el("td", { "class": "num fleiss", text: kappaText(j.fleiss) }),
        el("td", { "class": "small", text: Object.keys(j.pairs).map(function (p) { return p.replace("|", " \u2013 ") + " " + kappaText(j.pairs[p]); }).join("; ") || "\u2013" }),
        el("td", { "class": "num", text: j.rate === null ? "\u2013" : fmt(100 * j.rate, 0) + "%" +
          (j.unit !== "samples" ? " (" + j.split + " / " + j.units + " " + j.unit + ")" : "") }),
        el("td", { "class": "num", text: j.mean === null ? "\u2013" : fmt(j.mean, 3) + (ci ? " [" + fmt(ci[0], 2) + ", " + fmt(ci[1], 2) + "]" : "") }),
        el("td", { "class": "small", text: Object.keys(j.cost).map(function (n) {
          return n + " " + (j.cost[n] === null ? "no price" : "$" + fmt(j.cost[n], 4)); }).join(", ") })]));
    });
  });
  if (!rows.length) return;
  root.appendChild(el("div", { "class": "card", id: "jury" }, [
    el("h3", { text: "Jury: agreement between judges" }),
    el("p", { "class": "small muted", text: "Every judge-backed metric ran on each judge. Kappa is agreement beyond chance on the " +
      "claims' verdicts (1: always agree, 0: as chance); the interval resamples samples and then judges. Policy: " + (policy || "") + "." }),
    el("div", { "class": "table-wrap" }, el("table", { id: "jury-table" }, [
      el("thead", null, el("tr", null, ["System", "Output", "Judges", "Fleiss' kappa", "Cohen's kappa (pairs)",
        "Disagreement", "Mean over judges [95% CI]", "Cost per judge"].map(function (h) { return el("th", { text: h }); }))),
      el("tbody", null, rows)]))]));
}

// Beside each claim of the open sample: "split" with who said what, or the unanimous agreement.
function markSplit(index) {
  var sample = D.samples[index];
  if (!sample || !sample.j) return;
  claimRows(sample).forEach(function (r, k) {
    var v = r.verdict;
    if (!v || !v.jy) return;
    var split = isSplit(v);
    Array.prototype.forEach.call(drawerBody.querySelectorAll('.claim-list li[data-claim="' + k + '"]'), function (li) {
      li.appendChild(chip(split ? "split: " + whoSaid(v) : "jury agrees", split ? "split jury-split" : "muted", "jury: " + whoSaid(v)));
    });
    if (split) Array.prototype.forEach.call(drawerBody.querySelectorAll('.answer [data-claim="' + k + '"]'), function (n) {
      n.classList.add("split");
    });
  });
}

// Every judge's verdict for each claim, and each judge's score of the sample.
function juryCard(sample) {
  var rows = claimRows(sample).filter(function (r) { return r.verdict && r.verdict.jy; });
  var names = rows.length ? Object.keys(rows[0].verdict.jy) : Object.keys(sample.j.jv || {});
  var jv = sample.j.jv;
  return el("div", { "class": "card", id: "claim-jury" }, [
    el("h3", { text: "Jury verdicts" }),
    jv ? el("p", { "class": "small muted", id: "jury-scores", text: "Score per judge: " + Object.keys(jv).map(function (n) {
      return n + " " + (jv[n] === null ? "failed" : fmt(jv[n], 3)); }).join(", ") }) : null,
    el("table", { id: "jury-claims" }, [
      el("thead", null, el("tr", null, ["Claim", "Majority", "Agreement"].concat(names).map(function (h) { return el("th", { text: h }); }))),
      el("tbody", null, rows.map(function (r) {
        var v = r.verdict;
        return el("tr", { "class": isSplit(v) ? "split" : null }, [
          el("td", { dir: "auto", text: r.claim.text }), el("td", null, verdictChip(v.label)),
          el("td", { text: v.agr === null || v.agr === undefined ? "\u2013" : fmt(100 * v.agr, 0) + "%" })]
          .concat(names.map(function (n) { return el("td", null, v.jy[n] ? verdictChip(v.jy[n]) : chip("failed", "status")); })));
      }))])]);
}

registerTabSection("overview", { id: "jury", order: 21, render: juryOverview, when: hasJury });
registerHook("sample-opened", { id: "split-claims", order: 6, run: markSplit });
registerSampleSection({ id: "jury", order: 21, render: juryCard, when: function (sample) { return splitClaims(sample) !== null; } });
