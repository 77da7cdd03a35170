"""What the page walk asserts on every page, in a real Chromium: no horizontal overflow (of the page,
or of a box inside it not marked data-scrolls), no console
error, no failed request, no raw float / snake_case metric key / template braces in the visible
text, and no serious or critical axe-core violation (axe is vendored and injected by the test only)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import ARTIFACTS, ROOT

AXE = ROOT / "static" / "vendor" / "axe-core-4.14.1" / "axe.min.js"
SHOTS = ARTIFACTS / "pages"
VIEWPORTS = {"390x844": {"width": 390, "height": 844}, "1440x900": {"width": 1440, "height": 900}}

RAW_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d{5,}(?![\w.])")
# Metric keys as the tools name them: never shown to a person.
METRIC_KEY = re.compile(
    r"\b(?:[a-z0-9]+_)+(?:pct|52w)\b|\b(?:last_close|previous_close|total_return|annualised_return|"
    r"annualised_volatility|max_drawdown|risk_free_rate|market_cap|trailing_pe|forward_pe|dividend_yield)\b"
)
# What sticks out past the right edge: the outermost such elements, for the failure message.
WIDEST = """() => {
  const width = document.documentElement.clientWidth, out = [];
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.right > width + 1 && !(el.parentElement && el.parentElement.getBoundingClientRect().right > width + 1)) {
      out.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "." + [...el.classList].join("."));
    }
  }
  return out.slice(0, 3).join(", ");
}"""
# Boxes that scroll sideways inside the page (a table wider than its wrapper): on a phone the
# columns past the edge are out of sight. A box meant to scroll (a timeline, a matrix) says so
# with data-scrolls on itself or an ancestor.
INNER_SCROLL = """() => {
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const x = getComputedStyle(el).overflowX;
    if ((x === "auto" || x === "scroll") && el.scrollWidth > el.clientWidth + 1 && !el.closest("[data-scrolls]")) {
      out.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "." + [...el.classList].join(".")
        + " by " + (el.scrollWidth - el.clientWidth) + "px");
    }
  }
  return out.slice(0, 3);
}"""
# The page's visible text, less code samples (a reviewer's markup such as {{c3}} is shown in <code>).
VISIBLE_TEXT = """() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll("code, pre, textarea, script, style").forEach(el => el.remove());
  const holder = document.createElement("div");
  holder.style.position = "absolute"; holder.style.left = "-99999px";
  holder.appendChild(copy); document.documentElement.appendChild(holder);
  const text = copy.innerText; holder.remove(); return text;
}"""
AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => v.id + " (" + v.impact + "): " + v.help + " — "
      + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | "));
}"""


@dataclass
class Listener:
    """Collects console errors and failed requests of whatever the page loads."""

    errors: list[str] = field(default_factory=list)

    def attach(self, page: Any) -> None:
        page.on("console", lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: self.errors.append(f"request failed: {r.url} {r.failure}"))
        page.on("response", lambda r: self.errors.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)


def visible_text_problems(text: str) -> list[str]:
    problems = [f"raw float {m.group(0)!r}" for m in RAW_FLOAT.finditer(text)]
    problems += [f"metric key {m.group(0)!r}" for m in METRIC_KEY.finditer(text)]
    if "{{" in text or "{%" in text:
        problems.append("template braces visible")
    return problems[:5]


def settle(page: Any) -> None:
    """The page has loaded, its panels that load themselves (hx-trigger="load") have swapped in and
    no HTMX request is in flight — leaving a page earlier would abort its requests. (Not Playwright's
    "networkidle", which waits out 500 ms of quiet on every page: 45 s over the three walks.)"""
    page.wait_for_load_state("load")
    page.wait_for_function("!document.querySelector('[hx-trigger=\"load\"], .htmx-request')")


def check_page(page: Any, listener: Listener, url: str, shot: Path) -> list[str]:
    """Open ``url`` and return what is wrong with it (empty when nothing)."""
    # Leaving the previous page cancels its in-flight polls (net::ERR_ABORTED): that is the
    # browser's doing, not this page's, so it is left behind before listening starts.
    page.goto("about:blank")
    listener.errors.clear()
    response = page.goto(url, wait_until="load")
    settle(page)
    problems = [] if response and response.status < 400 else [f"status {response.status if response else '?'}"]
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    if overflow > 1:
        problems.append(f"horizontal overflow of {overflow}px by {page.evaluate(WIDEST)}")
    problems += [f"scrolls sideways inside the page: {box}" for box in page.evaluate(INNER_SCROLL)]
    problems += visible_text_problems(page.evaluate(VISIBLE_TEXT))
    for legend in page.locator(".u-legend").all_inner_texts():  # charts show the latest values, never "--"
        if "--" in legend:
            problems.append(f"chart legend without values: {legend!r}")
    page.add_script_tag(path=str(AXE))
    problems += [f"axe: {v}" for v in page.evaluate(AXE_RUN)]
    problems += listener.errors
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot), full_page=True)
    return problems
