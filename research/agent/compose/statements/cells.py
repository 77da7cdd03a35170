"""The pieces every statement answer is built from: a claim on one statement cell (re-read by the
verifier from its passage), a calculator claim, where the direct line goes, and a statement figure
written for a person. Shared by the value, ratio and growth answers (dispatch) and the formula,
yes/no and share-test answers."""

from __future__ import annotations

from typing import Any

from core import formatting
from research.agent.compose.composer import Composer
from research.agent.question.statements import Ask, best_rows, pick_cell
from research.calculator import CalculatorError, evaluate


def decimals(cell: dict[str, Any]) -> int:
    text = str(cell.get("text", ""))
    return len(text.split(".", 1)[1].rstrip("%)")) if "." in text else 0


def amount(value: float, unit: str, digits: int = 0, *, signed: bool = False) -> str:
    """A statement figure for a person: "$81,797 million", "$1.26 per share", "15,775,021 thousand shares"."""
    if unit == "%":
        return formatting.percent(value, digits=digits, signed=signed)
    if unit.startswith("shares"):
        scale = unit.partition("(")[2].rstrip(")").rstrip("s")
        return f"{formatting.format_number(value, digits, signed=signed)} {scale} shares".replace("  ", " ")
    if unit == "USD per share":
        return formatting.scaled_money(value, "USD", digits=max(2, digits), signed=signed) + " per share"
    scale = unit.partition(" ")[2].rstrip("s")
    return formatting.scaled_money(value, unit.partition(" ")[0], scale, digits=digits, signed=signed)


def _passage(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "citation": row["citation"],
        "url": row["url"],
        "chunk_id": row["chunk_id"],
        "document_id": row["document_id"],
        "page": row["page"],
    }


def cell_ref(c: Composer, row: dict[str, Any], cell: dict[str, Any], name: str, *, outflow: bool = False) -> str:
    """A claim on one cell (re-read by the verifier from the passage holding the row), with its row
    quoted. ``outflow``: a cash-flow payment printed in parentheses reads as the amount paid."""
    figure = str(cell["text"]).strip("$()%−- ") or str(cell["text"])
    value = float(cell["value"])
    ref = c.claim(
        kind="cell",
        chunk_id=row["chunk_id"],
        citation=row["citation"],
        url=row["url"],
        label=name,
        value=value,
        display=amount(abs(value) if outflow else value, row["unit"], decimals(cell)),
        quote_figure=figure,
        line=row["line"],
        chunk_next=row.get("chunk_next"),
        period=cell["label"],
    )
    shown = row.get("quote") or row["line"]
    cut = "…" if shown != row["line"] else ""  # the row runs on in the next passage
    quote = f"“{shown}{cut}” {c.cite(_passage(row), shown)}"
    if quote not in c.parts:
        c.parts.append(quote)
    c.figures.append(
        {
            "label": name,
            "value": str(cell["value"]),
            "unit": row["unit"],
            "period": cell["label"],
            "source": row["citation"],
            "document_id": row["document_id"],
            "chunk_id": row["chunk_id"],
            "url": row["url"],
            "metric": name,
            "target": cell["label"],
            "answers": True,
            "primary": True,
        }
    )
    return ref


def calc_ref(c: Composer, expression: str, label: str, display: Any) -> tuple[str, float] | None:
    """The calculator's result for ``expression`` as a calc claim (None when it refuses)."""
    try:
        value, _used, evaluated = evaluate(expression)
    except CalculatorError:
        return None
    ref = c.claim(kind="calc", expression=evaluated, value=value, label=label, display=display(value))
    return f"{ref} [Calculated: {expression}]", value


def number(cell: dict[str, Any]) -> str:
    return str(cell["value"])


def in_one_document(
    rows: list[dict[str, Any]], keys: tuple[str, ...], ask: Ask | None = None, question: str = ""
) -> dict[str, dict[str, Any]] | None:
    """The best row of each concept, all from the first document (in the rows' order) that has them
    all — with a column for the period ``ask`` names, when given; rows the question names first."""
    for document_id in dict.fromkeys(r["document_id"] for r in rows):
        mine = [r for r in rows if r["document_id"] == document_id]
        found = {
            key: [r for r in best_rows(key, mine, question) if ask is None or pick_cell(r["cells"], ask)]
            for key in keys
        }
        if all(found.values()):
            return {key: found[key][0] for key in keys}
    return None


def placeholder(c: Composer) -> int:
    """Where the direct answer line goes: before the quoted rows the claims will add."""
    c.parts.append("")
    return len(c.parts) - 1


def title(name: str) -> str:
    """The name at the start of a sentence: "Revenue"; a name such as "iPhone" keeps its case."""
    return name if name[1:2].isupper() else name[:1].upper() + name[1:]
