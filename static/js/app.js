/* Small behaviours that used to be inline handlers (onsubmit, onclick, hx-on): inline script is
   refused by the Content-Security-Policy, so pages declare them with data attributes instead. */
(function () {
  "use strict";
  // <form data-confirm-submit="Delete this?">: ask before submitting. (The reviews pages keep their
  // own data-confirm handler in reviews.js; a different name keeps the two from asking twice.)
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
})();
