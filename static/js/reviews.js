// Reviewer keyboard shortcuts. Plain JS, no dependencies.
(function () {
  "use strict";
  function typing(el) {
    return el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable);
  }
  // Every decision is confirmed by static/js/app.js (form[data-confirm-submit], on every page): a second
  // handler here asked twice.
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(document.activeElement)) { return; }
    var target = document.querySelector('[data-shortcut="' + event.key + '"]');
    if (target) {
      event.preventDefault();
      if (target.tagName === "SUMMARY") {
        var details = target.parentElement; details.open = true;
        var field = details.querySelector("textarea, input:not([type=hidden])");
        if (field) { field.focus(); }
      } else { target.click(); }
      return;
    }
    // Inbox: j/k move between rows, Enter opens the selected one.
    var links = Array.prototype.slice.call(document.querySelectorAll("a[data-row-link]"));
    if (!links.length) { return; }
    var index = links.indexOf(document.activeElement);
    if (event.key === "j") { links[Math.min(index + 1, links.length - 1)].focus(); event.preventDefault(); }
    if (event.key === "k") { links[Math.max(index - 1, 0)].focus(); event.preventDefault(); }
  });
})();
