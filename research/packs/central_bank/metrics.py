"""The quantities central-bank minutes and reports give, and the words that name them, most specific
first: a policy rate and the corridor around it, the stance, inflation and its parts, growth, the
government's borrowing and deficit, reserves, the balance sheet, credit and asset quality."""

from __future__ import annotations

from research.packs.base import Metric

# The inflation of a group of the CPI basket or of another index ("household goods and services
# inflation eased to 2.7 per cent") is not CPI inflation.
_SUBGROUPS = tuple(
    f"{group} inflation"
    for group in (
        "services", "goods", "fuel", "light", "wpi", "deflator", "vegetables", "cereals", "pulses", "housing",
        "wage", "import", "global", "commodity", "producer", "rural", "urban", "energy", "protein", "clothing",
    )
)  # fmt: skip

_OTHER_GROWTH = tuple(
    f"{what} growth"
    for what in (
        "gva", "credit", "deposit", "revenue", "revenues", "sales", "earnings", "export", "exports", "import",
        "imports", "wage", "loan", "loans", "money", "m3", "volume", "income", "profit", "eps", "user", "subscriber",
        "customer", "membership", "segment", "cloud", "azure", "services", "payments", "transactions",
    )
)  # fmt: skip

METRICS: tuple[Metric, ...] = (
    Metric("reverse_repo", "reverse repo rate", ("reverse repo",), asked=("reverse repo",)),
    Metric(
        "repo",
        "policy repo rate",
        ("policy repo rate", "repo rate", "policy rate"),
        excludes=("reverse repo",),
        asked=("repo", "policy rate", "interest rate", "key rate", "benchmark rate"),
    ),
    # Not a figure: what the committee said it would do next. "Who dissented on the stance?" asks about
    # its vote, not the rate's.
    Metric(
        "stance",
        "policy stance",
        ("stance", "withdrawal of accommodation", "accommodative", "neutral"),
        percent=False,
        figured=False,
        asked=("stance",),
    ),
    Metric("sdf", "standing deposit facility (SDF) rate", ("standing deposit facility", "sdf")),
    Metric("msf", "marginal standing facility (MSF) rate", ("marginal standing facility", "msf")),
    Metric("bank_rate", "Bank Rate", ("bank rate",)),
    Metric("crr", "cash reserve ratio (CRR)", ("cash reserve ratio", "crr")),
    Metric("slr", "statutory liquidity ratio (SLR)", ("statutory liquidity ratio", "slr")),
    Metric(
        "core_inflation",
        "core inflation",
        ("core inflation", "excluding food and fuel", "cpi core", "core cpi"),
        asked=("core inflation",),
    ),
    Metric(
        "food_inflation",
        "food inflation",
        ("food inflation", "food and beverages", "food price"),
        asked=("food inflation",),
    ),
    # "The medium-term target for CPI inflation of 4 per cent": the goal, not a reading of inflation.
    Metric(
        "inflation_target",
        "inflation target",
        ("inflation target", "medium-term target"),
        asked=("inflation target", "target for inflation", "target for cpi", "target for headline"),
    ),
    Metric(
        "cpi",
        "CPI inflation",
        ("cpi inflation", "headline inflation", "inflation", "cpi"),
        # "The core inflation (CPI excluding items of Food, … Fuel & Light)" names CPI only to define core.
        excludes=(
            "core inflation",
            "food inflation",
            "cpi excluding",
            "cpi-excluding",
            "cpi core",
            "core cpi",
            "inflation target",
            *_SUBGROUPS,
            # The consumer price indices of agricultural, rural and industrial workers are other indices.
            "cpi for agricultural",
            "cpi for rural",
            "cpi for industrial",
            "cpi-al",
            "cpi-rl",
            "cpi-iw",
        ),
        asked=("inflation", "cpi"),
    ),
    Metric(
        "gdp",
        "real GDP growth",
        ("real gdp growth", "gdp growth", "gdp", "growth projection", "economic growth"),
        # "US$ 65.6 billion (2.6 per cent of GDP)" measures the current account by GDP, not GDP's growth.
        excludes=(
            "gva",
            "per cent of gdp",
            "% of gdp",
            "share of gdp",
            "percentage of gdp",
            "proportion of gdp",
            "ratio to gdp",
            "relative to gdp",
            "to-gdp",
            "to gdp ratio",
            # Another quantity's growth ("GVA growth", "credit growth", "revenue growth") is not GDP's.
            *_OTHER_GROWTH,
        ),
        asked=("gdp", "growth"),
    ),
    Metric("gva", "real GVA growth", ("gva",), asked=("gva", "gross value added")),
    Metric(
        "borrowings",
        "gross market borrowings",
        ("market borrowings", "gross market borrowing", "borrowings"),
        percent=False,
        asked=("borrowing",),
    ),
    Metric("fiscal_deficit", "fiscal deficit", ("fiscal deficit", "gross fiscal deficit"), asked=("fiscal deficit",)),
    Metric(
        "current_account", "current account deficit", ("current account deficit", "cad"), asked=("current account",)
    ),
    Metric(
        "forex",
        "foreign exchange reserves",
        ("foreign exchange reserves", "forex reserves"),
        percent=False,
        asked=("forex", "foreign exchange reserve", "reserves"),
    ),
    Metric("balance_sheet", "balance sheet size", ("balance sheet",), percent=False, asked=("balance sheet",)),
    Metric("surplus", "surplus transferred", ("surplus",), percent=False, asked=("surplus", "dividend to")),
    Metric(
        "credit_growth",
        "credit growth",
        ("credit growth", "bank credit", "non-food credit"),
        # One sector's or borrower's credit ("credit growth to large industries was … (6.4 per cent)",
        # "services sector bank credit", "net bank credit to the government") is not credit growth.
        excludes=("credit growth to", "sector bank credit", "credit to the government", "credit to large"),
        asked=("credit",),
    ),
    Metric("gnpa", "gross NPA ratio", ("gross non-performing", "gnpa", "gross npa"), asked=("npa", "non-performing")),
)
