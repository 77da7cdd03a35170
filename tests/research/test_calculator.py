"""The safe calculator: right answers (checked against Python's own maths) and clear refusals."""

import math
from typing import Any

import pytest

from core.tools import call_tool
from research.calculator import CalculatorError, evaluate


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 + 2 * 3", 7.0),
        ("(1 + 2) * 3", 9.0),
        ("2 ** 10", 1024.0),
        ("10 % 3", 1.0),
        ("-4 + +2", -2.0),
        ("1,250,000 * 2", 2_500_000.0),
        ("1000 * 12.5%", 125.0),
        ("7 × 6 ÷ 2", 21.0),
        ("pct_change(1480.5, 1523.2)", (1523.2 - 1480.5) / 1480.5 * 100),
        ("growth_rate(200, 150)", -25.0),
        ("cagr(100, 180, 5)", ((180 / 100) ** (1 / 5) - 1) * 100),
        ("ratio(3, 4)", 0.75),
        ("mean(1, 2, 3, 4)", 2.5),
        ("round(sqrt(2), 4)", round(math.sqrt(2), 4)),
        ("max(1, 5, 3) - min(4, 2)", 3.0),
    ],
)
def test_values_match_python(expression: str, expected: float) -> None:
    value, _, _ = evaluate(expression)
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("__import__('os').system('ls')", "Calling .* is not allowed"),
        ("open('/etc/passwd')", "Unknown function 'open'"),
        ("x + 1", "Names such as 'x'"),
        ("(1).real", "Attribute is not allowed"),
        ("[1, 2][0]", "is not allowed"),
        ("'a' * 3", "Constant is not allowed"),
        ("9 ** 999", "Exponent 999 is too large"),
        ("10 ** 99", "out of range"),
        ("1 / 0", "Division by zero"),
        ("pct_change(0, 5)", "starting value is 0"),
        ("cagr(100, 200, 0)", "years must be positive"),
        ("ratio(1)", "got 1 argument"),
        ("(-8) ** 0.5", "not a real number"),
        ("1 +", "Not a valid expression"),
        ("", "empty"),
        ("lambda: 1", "Lambda is not allowed"),
        ("+".join(["1"] * 150), "too long"),
    ],
)
def test_refusals_are_clear(expression: str, message: str) -> None:
    with pytest.raises(CalculatorError, match=message):
        evaluate(expression)


def test_the_tool_returns_definitions_and_structured_errors() -> None:
    ok = call_tool("calculate_financial_metric", {"expression": "cagr(100, 180, 5)"}, user=None)
    assert ok.output is not None
    data: dict[str, Any] = ok.as_dict()
    assert data["result"] == pytest.approx(12.4746, abs=1e-4)
    assert data["functions"] == ["cagr(begin, end, years) = ((end / begin)^(1/years) - 1) × 100, in percent"]
    bad = call_tool("calculate_financial_metric", {"expression": "open('/etc/passwd')"}, user=None)
    assert bad.error is not None and bad.error.error == "invalid_expression"
    empty = call_tool("calculate_financial_metric", {"expression": ""}, user=None)
    assert empty.error is not None and empty.error.error == "invalid_input"
