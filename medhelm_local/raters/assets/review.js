// The review page: text selected inside a value fills that value's "missed identifier" box.
(function () {
  "use strict";
  document.addEventListener("mouseup", function () {
    var selection = window.getSelection();
    if (!selection || selection.isCollapsed) { return; }
    var node = selection.anchorNode;
    var pre = node && (node.nodeType === 1 ? node : node.parentElement);
    pre = pre && pre.closest("pre.text");
    if (!pre) { return; }
    var box = pre.parentElement.querySelector("input.missed");
    if (box) { box.value = selection.toString().trim(); box.focus(); }
  });
}());
