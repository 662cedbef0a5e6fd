// conversations_link.js: runs after links.js, once the tabs are drawn.
// An address naming a conversation without a tab (#conv=ID&turn=N) opens the conversation view.
function openConversationLink() {
  var p = linkParams();
  if (!p.has("conv") || p.get("tab") || !hasConversations()) return;
  p.set("tab", "conversations");
  writeLink(p);
  applyLink(true);
}
window.addEventListener("hashchange", openConversationLink);
openConversationLink();
