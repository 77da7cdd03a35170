// Every page: a region that scrolls sideways (a wide table on a phone) can be scrolled from the
// keyboard — it takes focus (tabindex=0) and is named after its table's heading for screen readers.
(function () {
  "use strict";
  function label(el) {
    var section = el.closest("section, article");
    var heading = section && section.querySelector("h1, h2, h3");
    return heading ? heading.textContent.trim() + " (scrolls sideways)" : "Table (scrolls sideways)";
  }
  function mark(root) {
    (root || document).querySelectorAll(".table, .table-wrap, .scroll-x").forEach(function (el) {
      if (el.scrollWidth > el.clientWidth + 1 && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "region");
        el.setAttribute("aria-label", label(el));
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () { mark(document); });
  document.addEventListener("htmx:afterSettle", function (e) { mark(e.target); });
  window.addEventListener("resize", function () { mark(document); });
})();
