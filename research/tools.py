"""Research tools in the shared registry (see core/tools.py)."""

from research.calculator import calculate_financial_metric

__all__ = ["calculate_financial_metric"]
