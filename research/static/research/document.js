// Document reader: open at the cited passage even when the fragment is not in the URL.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var target = document.querySelector(".chunk.target");
    if (target) { target.scrollIntoView({block: "center"}); }
  });
})();
