/* Document reader (one page at a time): open at the cited passage even when the fragment is not in the URL. */
document.addEventListener("DOMContentLoaded", function () {
  "use strict";
  var target = document.querySelector(".chunk.target");
  if (target) { target.scrollIntoView({block: "center"}); }
});
