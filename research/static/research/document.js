/* Open a document at the cited passage (or page) even when the fragment is not in the URL. */
document.addEventListener("DOMContentLoaded", function () {
  "use strict";
  var el = document.querySelector(".chunk.target") || document.querySelector(".doc-page.current");
  if (el) { el.scrollIntoView({block: "center"}); }
});
