"""The reviewer's editable form of a brief: rendered text with figure chips.

``to_markup`` writes the prose a reviewer may edit — ``# title``, the lead, then ``## TICKER`` and
its narrative — with every reference as a *chip* that shows what the reader will see::

    ⟦c3|+0.53%⟧   a claim (id | the verified figure)
    ⟦t:RELIANCE.NS|Reliance Industries⟧   a ticker
    ⟦as_of|30 Sep 2025⟧   the data date

The review page turns chips into unbreakable elements (``static/briefs/chips.js``); without
JavaScript the text is still readable. ``from_markup`` turns chips back into references, refuses a
chip whose figure was altered, and re-applies the figure-free contract to the new prose
(headlines, tickers, the table and the dateline stay as retrieved and computed).
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from briefs.claims import Claim
from briefs.contract import ANY_REF_RE, is_directed
from briefs.draft import BriefDraft
from briefs.render import Figures, claim_display, short_name

CHIP_RE = re.compile(r"⟦([^|⟦⟧]+)\|([^⟦⟧]*)⟧")
_PARTIAL_CHIP_RE = re.compile(r"[⟦⟧]")


def _chip_label(token: str, figures: Figures, text: str, start: int) -> str:
    if token.startswith("c"):
        claim = figures.claims.get(token)
        if claim is None:
            return "unknown figure"
        return claim_display(claim, magnitude=is_directed(text, start))
    if token.startswith("t:"):
        return short_name(figures.names.get(token[2:], ""), token[2:])
    return figures.as_of_text


def chips(text: str, figures: Figures) -> str:
    """``rose {{c3}}`` → ``rose ⟦c3|0.53%⟧``."""

    def sub(match: re.Match[str]) -> str:
        token = match.group(0)[2:-2]
        return f"⟦{token}|{_chip_label(token, figures, text, match.start())}⟧"

    return ANY_REF_RE.sub(sub, text)


def to_markup(draft: BriefDraft, claims: list[Claim]) -> str:
    """``# title`` / lead / ``## TICKER`` + narrative, with chips: what the reviewer edits."""
    figures = Figures.of(draft, claims, {c.id for c in claims})
    lines = [f"# {chips(draft.title, figures)}", chips(draft.summary, figures)]
    for section in draft.sections:
        lines += ["", f"## {section.ticker}", chips(section.narrative, figures)]
    return "\n".join(lines)


def unchip(text: str, figures: Figures) -> str:
    """Chips back to references; ``ValueError`` when a chip's figure was changed or a chip is broken."""

    def sub(match: re.Match[str]) -> str:
        token, label = match.group(1).strip(), match.group(2).strip()
        if not ANY_REF_RE.fullmatch("{{" + token + "}}"):
            raise ValueError(f"“{match.group(0)}” is not a figure of this brief; figures cannot be typed")
        reference = "{{" + token + "}}"
        if token.startswith("c") and token not in figures.claims:
            raise ValueError(f"“{label}” ({token}) is not a figure of this brief")
        expected = _chip_label(token, figures, text, match.start())
        # a figure moved beside (or away from) a direction word may show with or without its sign
        allowed = {expected, _chip_label(token, figures, "", 0)}
        if token.startswith("c"):
            allowed.add(claim_display(figures.claims[token], magnitude=True))
        if label not in allowed:
            raise ValueError(f"the figure “{expected}” was changed to “{label}”: figures cannot be edited, only moved")
        return reference

    out = CHIP_RE.sub(sub, text)
    if _PARTIAL_CHIP_RE.search(out):
        raise ValueError("a figure chip was broken (a ⟦ or ⟧ is left over); restore it or remove it whole")
    return out


def _split(text: str) -> tuple[str, list[str], dict[str, list[str]]]:
    title = ""
    summary: list[str] = []
    narratives: dict[str, list[str]] = {}
    current: list[str] = summary
    for raw in text.replace("\r\n", "\n").split("\n"):
        if raw.startswith("## "):
            ticker = raw[3:].strip()
            narratives[ticker] = []
            current = narratives[ticker]
        elif raw.startswith("# ") and not title:
            title = raw[2:].strip()
        else:
            current.append(raw)
    return title, summary, narratives


def from_markup(text: str, original: BriefDraft, claims: list[Claim]) -> BriefDraft:
    """Apply a reviewer's edited markup to ``original``. Raises ``ValueError`` with a message a
    reviewer understands."""
    figures = Figures.of(original, claims, {c.id for c in claims})
    title, summary, narratives = _split(unchip(text, figures))
    known = [s.ticker for s in original.sections]
    unknown = [t for t in narratives if t not in known]
    if unknown:
        raise ValueError(f"sections may not be added: {', '.join(unknown)} is not in this brief")
    sections = [
        s.model_copy(update={"narrative": "\n".join(narratives[s.ticker]).strip()}) if s.ticker in narratives else s
        for s in original.sections
    ]
    data = original.model_dump()
    data.update(
        title=title or original.title,
        summary="\n".join(summary).strip(),
        sections=[s.model_dump() for s in sections],
    )
    try:
        return BriefDraft.model_validate(data)
    except ValidationError as exc:  # the first message, readable (the validators raise only ValueError)
        raise ValueError(str(exc.errors()[0]["msg"]).removeprefix("Value error, ")) from None
