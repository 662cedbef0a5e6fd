// links.js: every view has an address. The fragment holds the tab, the open sample (system, id and claim
// number, counted from 1) and the tab's filters, e.g. #tab=review&verdict=contradicted&sys=dense&id=q3&claim=2:
// copying the address shares the exact view. Runs last, after main.js drew the overview.
var tabLinks = {}, applyingLink = false;
function linkParams() { return new URLSearchParams(location.hash.replace(/^#/, "")); }
function writeLink(params) {
  var hash = params.toString(), url = location.href.split("#")[0] + (hash ? "#" + hash : "");
  if (url === location.href) return;
  try { history.replaceState(null, "", url); } catch (e) { location.replace(url); }
}
// Merge values into the address; null, undefined and "" remove a key. The current tab remembers its address.
function updateLink(values) {
  if (applyingLink) return;
  var p = linkParams();
  Object.keys(values).forEach(function (k) {
    var v = values[k];
    if (v === null || v === undefined || v === "") p.delete(k); else p.set(k, String(v));
  });
  writeLink(p);
  tabLinks[p.get("tab") || "overview"] = p.toString();
}
function linkNumber(p, key) { var v = p.get(key); return v === null || v === "" || isNaN(Number(v)) ? null : Number(v); }
function systemIndex(label) {
  for (var i = 0; i < D.systems.length; i++) if (D.systems[i].label === label) return String(i);
  return "";
}
function findSample(label, id) {
  for (var i = 0; i < D.samples.length; i++) if (sysLabel(D.samples[i].sys) === label && D.samples[i].id === id) return i;
  return -1;
}
function sampleLink(index, claimPosition) {
  var s = D.samples[index], p = new URLSearchParams();
  p.set("tab", "samples"); p.set("sys", sysLabel(s.sys)); p.set("id", s.id);
  if (claimPosition !== null && claimPosition !== undefined) p.set("claim", String(claimPosition + 1));
  return "#" + p.toString();
}
function currentTab() {
  var b = document.querySelector(".tabs button[aria-selected=true]");
  return b ? b.getAttribute("data-tab") : "overview";
}

// Switching tabs restores that tab's last address; opening a sample or a claim adds it to the address.
registerHook("tab-switch", { id: "address", run: function (name) {
  if (!applyingLink && name !== currentTab()) writeLink(new URLSearchParams(tabLinks[name] || (name === "overview" ? "" : "tab=" + name)));
} });
registerHook("sample-opened", { id: "address", order: 10, run: function (index, claimIndex) {
  var s = D.samples[index];
  updateLink({ tab: currentTab() === "overview" ? null : currentTab(), sys: sysLabel(s.sys), id: s.id,
    claim: claimIndex === null || claimIndex === undefined ? null : claimIndex + 1, psys: null, pid: null });
} });
drawerBody.addEventListener("click", function (e) {
  var node = e.target.closest ? e.target.closest("[data-claim]") : null;
  if (node && linkParams().has("id")) updateLink({ claim: Number(node.getAttribute("data-claim")) + 1 });
});
function forgetSample() { updateLink({ sys: null, id: null, claim: null, psys: null, pid: null }); }
document.getElementById("drawer-close").addEventListener("click", forgetSample);
backdrop.addEventListener("click", forgetSample);
document.addEventListener("keydown", function (e) { if (e.key === "Escape") forgetSample(); });

function linkNotice(text) {
  var old = document.getElementById("link-missing");
  if (old) old.remove();
  if (!text) return;
  var main = document.getElementById("main");
  main.insertBefore(el("p", { "class": "notice", id: "link-missing", text: text }), main.firstChild);
}

// Open the view the address names; a tab already drawn is drawn again so its filters follow the address.
function applyLink(redraw) {
  var p = linkParams(), tab = p.get("tab") || "overview";
  if (!hasTab(tab)) tab = "overview";
  applyingLink = true;
  try {
    linkNotice("");
    if (!p.has("id") && !p.has("pid") && !drawer.hidden) closeDrawer();
    if (redraw) resetTab(tab);
    showTab(tab);
    if (p.has("id") && tab !== "runs") {
      var i = findSample(p.get("sys") || "", p.get("id"));
      var claim = linkNumber(p, "claim");
      if (i >= 0) openSample(i, claim === null ? undefined : claim - 1);
      else linkNotice("The linked sample (" + (p.get("sys") || "?") + " \u00B7 " + p.get("id") + ") is not in this report.");
    }
  } finally { applyingLink = false; }
  tabLinks[tab] = linkParams().toString();
}
window.addEventListener("hashchange", function () { applyLink(true); });
if (location.hash.length > 1) applyLink(false);
