"""The calculator's guards and boundaries, each with the value or the exact message a person gets.

Expected values are arithmetic done by hand (2 ** -1 = 0.5, (2 / 0.5) ** 1 − 1 = 300 %, ...);
messages are the sentences the calculator promises (research/calculator.py)."""

from __future__ import annotations

import math
import re

import pytest

from research.calculator import FUNCTIONS, CalculatorError, _check, evaluate

ALLOWED = "abs, avg, cagr, growth_rate, max, mean, min, pct_change, ratio, round, sqrt, sum"


def _value(expression: str) -> float:
    return evaluate(expression)[0]


def _refused(expression: str, message: str) -> None:
    with pytest.raises(CalculatorError, match=f"^{re.escape(message)}$"):
        evaluate(expression)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("2 ** -1", 0.5),  # a negative power of a non-zero base is fine
        ("1 ** -1", 1.0),
        ("0 ** 0", 1.0),
        ("0 ** 0.5", 0.0),  # zero to a positive fractional power
        ("4 ** 0.5", 2.0),
        ("0.25 ** 0.5", 0.5),
        ("(-2) ** 3", -8.0),  # a negative base with a whole exponent
        ("1 ** 100", 1.0),  # the largest exponent allowed
        ("1 ** -100", 1.0),
        ("1000000000000000", 1e15),  # the largest magnitude allowed
        ("-1000000000000000", -1e15),
        ("ratio(3, 1)", 3.0),
        ("ratio(-3, 4)", -0.75),
        ("sqrt(0)", 0.0),
        ("sqrt(0.25)", 0.5),
        ("cagr(0.5, 2, 1)", 300.0),
        ("cagr(2, 0.5, 1)", -75.0),
        ("cagr(100, 121, 2)", 10.0),
        ("cagr(100, 144, 0.5)", 107.36),
        ("pct_change(-50, -25)", 50.0),  # relative to |old|: a rise from −50 to −25 is +50 %
        ("growth_rate(80, 100)", 25.0),
        ("mean(1, 2, 6)", 3.0),
        ("avg(5)", 5.0),
        ("round(2.5)", 2.0),  # one argument: to a whole number, half to even
        ("round(3.5)", 4.0),
        ("round(1.23456, 2)", 1.23),
        ("round(1234.5, -2)", 1200.0),
        ("5 − 3", 2.0),  # U+2212 minus sign
        ("2^3", 8.0),
        ("6 × 7 ÷ 2", 21.0),
        ("12.5% * 80", 10.0),
        ("1,250,000 / 1,000", 1250.0),
        ("-sqrt(4)", -2.0),
        ("+abs(-3)", 3.0),
        ("7 % 4", 3.0),
    ],
)
def test_values_at_and_inside_the_guards(expression: str, expected: float) -> None:
    assert _value(expression) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("0 ** -1", "Division by zero (0 raised to a negative power)."),
        ("0 ** -0.5", "Division by zero (0 raised to a negative power)."),
        ("1 / 0", "Division by zero."),
        ("1 % 0", "Division by zero."),
        ("(-8) ** 0.5", "A negative number raised to a fractional power is not a real number."),
        ("2 ** 101", "Exponent 101 is too large (at most 100)."),
        ("2 ** -101", "Exponent -101 is too large (at most 100)."),
        ("1000000000000000 ** 100", "A value is out of range."),
        ("1000000000000001", "A value is out of range (|x| must stay at or below 1e+15)."),
        ("ratio(1, 0)", "ratio: the denominator is 0."),
        ("pct_change(0, 5)", "pct_change: the starting value is 0, so a percentage change is undefined."),
        ("cagr(0, 10, 1)", "cagr: start and end values must be positive."),
        ("cagr(10, 0, 1)", "cagr: start and end values must be positive."),
        ("cagr(-10, 10, 1)", "cagr: start and end values must be positive."),
        ("cagr(10, -10, 1)", "cagr: start and end values must be positive."),
        ("cagr(10, 20, 0)", "cagr: the number of years must be positive."),
        ("cagr(10, 20, -1)", "cagr: the number of years must be positive."),
        ("sqrt(-4)", "sqrt: the value is negative."),
        ("mean()", "mean takes mean(x1, x2, …) = arithmetic mean; got 0 argument(s)."),
        ("sum()", "sum takes sum(x1, x2, …); got 0 argument(s)."),
        ("round()", "round takes round(x, digits); got 0 argument(s)."),
        ("round(1, 2, 3)", "round takes round(x, digits); got 3 argument(s)."),
        ("round(1.5, ndigits=1)", "round takes positional arguments only."),
        ("foo(1)", f"Unknown function 'foo'. Allowed functions: {ALLOWED}."),
        ("math.sqrt(4)", f"Calling 'math.sqrt' is not allowed. Allowed functions: {ALLOWED}."),
        ("x + 1", "Names such as 'x' are not allowed; write the numbers themselves."),
        ("   ", "The expression is empty."),
        ("1" * 31, "A number has more than 30 digits; write it shorter (e.g. 1.5e12)."),
        ("1" + "+1" * 67, "The expression is too long (over 200 parts)."),
    ],
)
def test_refusals_say_exactly_what_is_wrong(expression: str, message: str) -> None:
    _refused(expression, message)


def test_length_and_size_limits_are_inclusive() -> None:
    assert _value("1" + " " * 496 + "+ 1") == 2.0  # exactly 500 characters
    _refused("1" + " " * 497 + "+ 1", "The expression is longer than 500 characters.")
    assert _value("1" + "+1" * 66) == 67.0  # exactly 200 parts
    # An integer too large for a float, written with underscores to pass the digit limit.
    huge = "_".join(["1" + "0" * 28] + ["0" * 29] * 10)
    _refused(huge, "A value is out of range (|x| must stay at or below 1e+15).")


def test_used_functions_are_reported_once_each_in_order() -> None:
    value, used, text = evaluate("-sqrt(4) + mean(2, 4) + sqrt(9)")
    assert (value, used, text) == (4.0, ["sqrt", "mean", "sqrt"], "-sqrt(4) + mean(2, 4) + sqrt(9)")


def test_the_finance_functions_guard_themselves_when_called_directly() -> None:
    with pytest.raises(CalculatorError, match=r"^mean: give at least one value\.$"):
        FUNCTIONS["mean"][0]()
    for bad in (math.nan, math.inf, -math.inf, complex(1, 1), 1e15 + 1):
        with pytest.raises(CalculatorError, match=r"^A value is out of range"):
            _check(bad)  # type: ignore[arg-type]
    assert _check(1e15) == 1e15 and _check(-3) == -3.0
