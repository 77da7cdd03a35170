"""``calculate_financial_metric``: a safe arithmetic evaluator over Python's AST.

Allowed: numbers, ``+ - * / ** %`` (modulo), unary ``+``/``-``, parentheses, percent literals
(``12.5%`` = 0.125) and a whitelist of named finance functions. Not allowed: names, attributes,
subscripts, comprehensions, lambdas, strings, or any call outside the whitelist. Exponents and
magnitudes are bounded so an expression cannot exhaust the machine.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from core.tools import ToolFailure, tool

MAX_EXPRESSION_CHARS = 500
MAX_NODES = 200
MAX_EXPONENT = 100
MAX_MAGNITUDE = 1e15
MAX_DIGITS = 30  # per number: more than any figure needs, far less than float overflow
_LONG_NUMBER = re.compile(r"\d{" + str(MAX_DIGITS + 1) + ",}")


class CalculatorError(ValueError):
    """A refusal with a message meant for the person who typed the expression."""


def _pct_change(old: float, new: float) -> float:
    if old == 0:
        raise CalculatorError("pct_change: the starting value is 0, so a percentage change is undefined.")
    return (new - old) / abs(old) * 100


def _cagr(begin: float, end: float, years: float) -> float:
    if begin <= 0 or end <= 0:
        raise CalculatorError("cagr: start and end values must be positive.")
    if years <= 0:
        raise CalculatorError("cagr: the number of years must be positive.")
    return ((end / begin) ** (1 / years) - 1) * 100


def _ratio(a: float, b: float) -> float:
    if b == 0:
        raise CalculatorError("ratio: the denominator is 0.")
    return a / b


def _mean(*values: float) -> float:
    if not values:
        raise CalculatorError("mean: give at least one value.")
    return sum(values) / len(values)


def _sqrt(x: float) -> float:
    if x < 0:
        raise CalculatorError("sqrt: the value is negative.")
    return math.sqrt(x)


# name -> (function, allowed argument counts (None = one or more), what it means)
FUNCTIONS: dict[str, tuple[Callable[..., float], tuple[int, ...] | None, str]] = {
    "pct_change": (_pct_change, (2,), "pct_change(old, new) = (new - old) / |old| × 100, in percent"),
    "growth_rate": (_pct_change, (2,), "growth_rate(old, new) = (new - old) / |old| × 100, in percent"),
    "cagr": (_cagr, (3,), "cagr(begin, end, years) = ((end / begin)^(1/years) - 1) × 100, in percent"),
    "ratio": (_ratio, (2,), "ratio(a, b) = a / b"),
    "mean": (_mean, None, "mean(x1, x2, …) = arithmetic mean"),
    "avg": (_mean, None, "avg(x1, x2, …) = arithmetic mean"),
    "sum": (lambda *v: float(sum(v)), None, "sum(x1, x2, …)"),
    "min": (lambda *v: float(min(v)), None, "min(x1, x2, …)"),
    "max": (lambda *v: float(max(v)), None, "max(x1, x2, …)"),
    "abs": (lambda x: float(abs(x)), (1,), "abs(x)"),
    "sqrt": (_sqrt, (1,), "sqrt(x)"),
    "round": (lambda x, n=0: float(round(x, int(n))), (1, 2), "round(x, digits)"),
}

_PERCENT_LITERAL = re.compile(r"(\d+(?:\.\d+)?|\.\d+)\s*%(?=\s*(?:$|[)+\-*/,]))")
_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
_SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Mod: "%", ast.Pow: "**"}


def _check(value: float) -> float:
    if isinstance(value, complex) or math.isnan(value) or math.isinf(value) or abs(value) > MAX_MAGNITUDE:
        raise CalculatorError(f"A value is out of range (|x| must stay at or below {MAX_MAGNITUDE:g}).")
    return float(value)


def _eval(node: ast.AST, used: list[str]) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body, used)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        try:
            return _check(float(node.value))
        except OverflowError as exc:  # an integer too large for a float
            raise CalculatorError(f"A value is out of range (|x| must stay at or below {MAX_MAGNITUDE:g}).") from exc
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        operand = _eval(node.operand, used)
        return operand if isinstance(node.op, ast.UAdd) else -operand
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left, used), _eval(node.right, used)
        if isinstance(node.op, ast.Div | ast.Mod) and right == 0:
            raise CalculatorError("Division by zero.")
        if isinstance(node.op, ast.Pow):
            if abs(right) > MAX_EXPONENT:
                raise CalculatorError(f"Exponent {right:g} is too large (at most {MAX_EXPONENT}).")
            if left < 0 and not float(right).is_integer():
                raise CalculatorError("A negative number raised to a fractional power is not a real number.")
            if left == 0 and right < 0:
                raise CalculatorError("Division by zero (0 raised to a negative power).")
        try:
            return _check(_BINARY[type(node.op)](left, right))
        except OverflowError as exc:
            raise CalculatorError("A value is out of range.") from exc
    if isinstance(node, ast.Call):
        allowed = ", ".join(sorted(FUNCTIONS))
        if not isinstance(node.func, ast.Name):
            raise CalculatorError(f"Calling {ast.unparse(node.func)!r} is not allowed. Allowed functions: {allowed}.")
        if node.func.id not in FUNCTIONS:
            raise CalculatorError(f"Unknown function {node.func.id!r}. Allowed functions: {allowed}.")
        if node.keywords:
            raise CalculatorError(f"{node.func.id} takes positional arguments only.")
        fn, arities, _ = FUNCTIONS[node.func.id]
        args = [_eval(arg, used) for arg in node.args]
        if (arities is None and not args) or (arities is not None and len(args) not in arities):
            raise CalculatorError(f"{node.func.id} takes {FUNCTIONS[node.func.id][2]}; got {len(args)} argument(s).")
        used.append(node.func.id)
        return _check(fn(*args))
    if isinstance(node, ast.Name):
        raise CalculatorError(f"Names such as {node.id!r} are not allowed; write the numbers themselves.")
    raise CalculatorError(
        f"{type(node).__name__} is not allowed; use numbers, + - * / ** %, parentheses and functions."
    )


def evaluate(expression: str) -> tuple[float, list[str], str]:
    """Evaluate ``expression``; returns (value, functions used, the normalised expression)."""
    text = (expression or "").strip()
    if not text:
        raise CalculatorError("The expression is empty.")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise CalculatorError(f"The expression is longer than {MAX_EXPRESSION_CHARS} characters.")
    if _LONG_NUMBER.search(text):
        raise CalculatorError(f"A number has more than {MAX_DIGITS} digits; write it shorter (e.g. 1.5e12).")
    text = text.replace("×", "*").replace("÷", "/").replace("−", "-").replace("^", "**")
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)  # 1,250,000 -> 1250000
    text = _PERCENT_LITERAL.sub(r"(\1/100)", text)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise CalculatorError(f"Not a valid expression: {exc.msg}.") from exc
    except (ValueError, MemoryError, RecursionError) as exc:  # NUL bytes, absurd nesting
        raise CalculatorError("Not a valid expression.") from exc
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise CalculatorError(f"The expression is too long (over {MAX_NODES} parts).")
    used: list[str] = []
    return _eval(tree, used), used, text


class CalculateIn(BaseModel):
    expression: str = Field(
        min_length=1,
        max_length=MAX_EXPRESSION_CHARS,
        description="Arithmetic with numbers, + - * / ** %, parentheses, percent literals (12.5%) and "
        "the functions pct_change, growth_rate, cagr, ratio, mean, avg, sum, min, max, abs, sqrt, round.",
        examples=["pct_change(1480.5, 1523.2)", "cagr(100, 180, 5)", "0.4*12.1 + 0.6*8.3"],
    )


class CalculateOut(BaseModel):
    expression: str
    evaluated: str = Field(description="The expression as evaluated, after normalising symbols and percents")
    result: float
    functions: list[str] = Field(description="Definitions of the finance functions used")
    source: str = "calculator"


@tool("calculate_financial_metric", input_model=CalculateIn, output_model=CalculateOut)
def calculate_financial_metric(params: CalculateIn, *, user: Any) -> CalculateOut:
    """Evaluate an arithmetic expression or finance function (pct_change, growth_rate, cagr, ratio,
    mean …) safely and exactly; use it for every derived figure instead of doing maths in text."""
    try:
        value, used, evaluated = evaluate(params.expression)
    except CalculatorError as exc:
        raise ToolFailure("invalid_expression", str(exc)) from exc
    return CalculateOut(
        expression=params.expression,
        evaluated=evaluated,
        result=value,
        functions=[FUNCTIONS[name][2] for name in dict.fromkeys(used)],
    )
