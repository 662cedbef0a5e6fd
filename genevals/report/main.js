// main.js: draw the registered tabs, wire the drawer, then draw the overview.
drawTabs();
document.getElementById("drawer-close").addEventListener("click", closeDrawer);
backdrop.addEventListener("click", closeDrawer);
document.addEventListener("keydown", function (e) { if (e.key === "Escape" && !drawer.hidden) closeDrawer(); });
showTab("overview");
document.documentElement.setAttribute("data-ready", "true");
