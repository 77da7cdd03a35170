/* Render the trace page's Mermaid source (generated server-side from the compiled graph) as SVG.
   strict security: labels are sanitised and no click handlers or scripts in the diagram run. */
(function () {
  "use strict";
  if (!window.mermaid) return;
  window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral" });
  window.mermaid.run({ querySelector: ".graph-diagram .mermaid" }).then(function () {
    document.querySelectorAll(".graph-diagram").forEach(function (el) { el.dataset.rendered = "true"; });
  });
})();
