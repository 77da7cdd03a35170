/* Small behaviours for every page. Inline script is refused by the Content-Security-Policy, so
   pages declare what used to be inline handlers (onsubmit, onclick, hx-on) with data attributes. */
(function () {
  "use strict";
  // <form data-confirm-submit="Delete this?">: ask before submitting. The one confirmation on every
  // page (reviewer decisions included): a second handler elsewhere would ask twice.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form && form.getAttribute ? form.getAttribute("data-confirm-submit") : null;
    if (question && !window.confirm(question)) { event.preventDefault(); event.stopImmediatePropagation(); }
  }, true);
  // <input data-select-on-click>: select the whole value (a new API token to copy).
  document.addEventListener("click", function (event) {
    var el = event.target && event.target.closest ? event.target.closest("[data-select-on-click]") : null;
    if (el) { el.select(); }
  });
  // <form data-reset-on-success hx-post=...>: empty the form once HTMX got a 2xx.
  document.addEventListener("htmx:afterRequest", function (event) {
    var el = event.detail && event.detail.elt;
    if (event.detail.successful && el && el.hasAttribute && el.hasAttribute("data-reset-on-success")) { el.reset(); }
  });

  // A region that scrolls sideways (a wide table on a phone) can be scrolled from the keyboard:
  // it takes focus (tabindex=0) and is named after its table's heading for screen readers.
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
