/* The reviewer edits the brief as rendered: each figure, ticker name and date is a chip
   (⟦c3|+0.53%⟧ in the form's text) shown as an element that cannot be typed into — it moves or
   goes as a whole. Headings (# title, ## TICKER) are fixed. The hidden textarea keeps the text
   the server parses (briefs/markup.py); without JavaScript the textarea itself is shown. */
(function () {
  "use strict";
  var CHIP = /⟦([^|⟦⟧]+)\|([^⟦⟧]*)⟧/g;

  function chipKind(token) {
    if (token.indexOf("t:") === 0) { return "ticker"; }
    return token === "as_of" ? "date" : "figure";
  }

  function chipTitle(token) {
    var kind = chipKind(token);
    if (kind === "ticker") { return token.slice(2) + " (a ticker: it moves or goes whole)"; }
    if (kind === "date") { return "the data's date (moves or goes whole)"; }
    return "claim " + token + ": a verified figure — it moves or goes whole, and cannot be edited";
  }

  function makeChip(token, label) {
    var chip = document.createElement("span");
    chip.className = "chip " + chipKind(token);
    chip.contentEditable = "false";
    chip.dataset.token = token;
    chip.dataset.label = label;
    chip.title = chipTitle(token);
    chip.textContent = label;
    return chip;
  }

  function fillLine(row, line) {
    var last = 0;
    line.replace(CHIP, function (whole, token, label, offset) {
      if (offset > last) { row.appendChild(document.createTextNode(line.slice(last, offset))); }
      row.appendChild(makeChip(token, label));
      last = offset + whole.length;
      return whole;
    });
    if (last < line.length) { row.appendChild(document.createTextNode(line.slice(last))); }
    if (!row.firstChild) { row.appendChild(document.createElement("br")); }
  }

  function build(editor, text) {
    editor.textContent = "";
    text.split("\n").forEach(function (line) {
      var row = document.createElement("div");
      if (/^##? /.test(line)) {
        row.className = "chip-heading";
        row.contentEditable = "false";
        row.dataset.line = line;
        row.textContent = line.replace(/^##? /, "").replace(CHIP, "$2");
      } else {
        fillLine(row, line);
      }
      editor.appendChild(row);
    });
  }

  function inline(node) {
    if (node.nodeType === Node.TEXT_NODE) { return node.nodeValue.replace(/\u00a0/g, " "); }
    if (node.nodeType !== Node.ELEMENT_NODE) { return ""; }
    if (node.dataset && node.dataset.token) { return "⟦" + node.dataset.token + "|" + node.dataset.label + "⟧"; }
    if (node.tagName === "BR") { return "\n"; }
    var out = "";
    node.childNodes.forEach(function (child) {
      var part = inline(child);
      if (child.nodeType === Node.ELEMENT_NODE && /^(DIV|P)$/.test(child.tagName) && out && out.slice(-1) !== "\n") {
        out += "\n";
      }
      out += part;
    });
    return out;
  }

  function serialize(editor) {
    var lines = [];
    editor.childNodes.forEach(function (node) {
      if (node.dataset && node.dataset.line) { lines.push(node.dataset.line); return; }
      var text = inline(node);
      if (text.slice(-1) === "\n" && node.tagName === "DIV") { text = text.slice(0, -1); }
      lines.push(text);
    });
    return lines.join("\n");
  }

  function enhance(textarea) {
    var editor = document.createElement("div");
    editor.className = "chip-editor";
    editor.contentEditable = "true";
    editor.setAttribute("role", "textbox");
    editor.setAttribute("aria-multiline", "true");
    editor.setAttribute("aria-label", "Brief text (figures are chips)");
    editor.dataset.testid = "chip-editor";
    build(editor, textarea.value);
    textarea.hidden = true;
    textarea.parentNode.insertBefore(editor, textarea);
    var label = document.querySelector('label[for="' + textarea.id + '"]');
    if (label) { label.addEventListener("click", function () { editor.focus(); }); }
    var sync = function () { textarea.value = serialize(editor); };
    editor.addEventListener("input", sync);
    editor.addEventListener("paste", function (event) {
      event.preventDefault();
      var text = (event.clipboardData || window.clipboardData).getData("text/plain");
      document.execCommand("insertText", false, text);
    });
    if (textarea.form) { textarea.form.addEventListener("submit", sync); }
  }

  function start() {
    var context = document.querySelector('.review-context[data-kind="brief_approval"]');
    var textarea = document.getElementById("edited-body");
    if (context && textarea) { enhance(textarea); }
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
}());
