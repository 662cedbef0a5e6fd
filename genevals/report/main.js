// main.js: wire the tabs and the drawer, then draw the overview.
Array.prototype.forEach.call(document.querySelectorAll(".tabs button"), function (b) {
  b.addEventListener("click", function () { showTab(b.getAttribute("data-tab")); });
});
document.getElementById("drawer-close").addEventListener("click", closeDrawer);
backdrop.addEventListener("click", closeDrawer);
document.addEventListener("keydown", function (e) { if (e.key === "Escape" && !drawer.hidden) closeDrawer(); });
showTab("overview");
document.documentElement.setAttribute("data-ready", "true");
