// selection.js: the one helper the report's review panel (decisions.js) and the item-by-item review page
// (genevals/review/items.js) share. The blind review page loads this file and items.js only, never the report's
// scripts (which carry verdicts), so this file must hold this helper and nothing else.

// The character offsets (UTF-16, as the answer's text) of the selection inside node; null when there is none.
function selectionIn(node) {
  var sel = window.getSelection();
  if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
  var r = sel.getRangeAt(0);
  if (!node.contains(r.startContainer) || !node.contains(r.endContainer)) return null;
  var pre = document.createRange();
  pre.selectNodeContents(node);
  pre.setEnd(r.startContainer, r.startOffset);
  var start = pre.toString().length;
  return [start, start + r.toString().length];
}
