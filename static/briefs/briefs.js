/* The delivered page frames the archived email: grow the frame to the email's height. */
(function () {
  "use strict";
  function fit(frame) {
    try {
      var doc = frame.contentDocument;
      if (doc && doc.body) { frame.style.height = (doc.body.scrollHeight + 4) + "px"; }
    } catch (e) { /* a cross-origin frame keeps its CSS height */ }
  }
  document.querySelectorAll("iframe.email-frame").forEach(function (frame) {
    frame.addEventListener("load", function () { fit(frame); });
    if (frame.contentDocument && frame.contentDocument.readyState === "complete") { fit(frame); }
    window.addEventListener("resize", function () { fit(frame); });
  });
}());
