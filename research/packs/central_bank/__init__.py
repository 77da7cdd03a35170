"""Central-bank monetary-policy minutes and reports, as the shipped corpus writes them (the Reserve
Bank of India's Monetary Policy Committee minutes and Annual Report): the policy rate and its
corridor, the committee, its offices and their holders, how a decision and a stance are worded, the
amounts in lakh and crore, and a fiscal year that starts in April. Another central bank's minutes
gain by adding their names, offices and phrasings here."""

from __future__ import annotations

from research.packs.base import Chairs, Office, Pack, Recognition
from research.packs.central_bank.metrics import METRICS

PACK = Pack(
    name="central_bank",
    label="central-bank minutes and reports",
    # Read from the first pages: monetary policy, a policy rate, inflation, a committee or board and a
    # central bank, in any of their usual wordings (three of them at least).
    recognition=Recognition(
        any_of=(
            r"\bmonetary policy\b",
            r"\b(?:policy (?:repo )?rate|bank rate|repo rate|policy interest rate)\b"
            r"|\bshort-term (?:policy )?interest rate\b",
            r"\binflation\b",
            r"\b(?:monetary policy committee|policy board|committee|board)\b",
            r"\b(?:reserve bank|central bank|bank of [A-Z]\w+|federal reserve)\b",
        ),
        enough=3,
    ),
    metrics=METRICS,
    policy_rates=("repo", "reverse_repo", "sdf", "msf", "bank_rate"),
    policy_rate="repo",
    quiet_words=("rbi", "mpc"),
    short_terms=("repo",),
    committees=("MPC",),
    honorifics=("Shri", "Smt", "Governor"),
    offices=("Governor",),
    abbreviations=("Shri", "Smt", "Rs"),
    money_scales=("lakh crore", "crore", "lakh"),
    unit_first_words=("lakh",),
    library_topics=(
        r"rbi|reserve bank|mpc|monetary policy|repo|reverse repo|crr|slr|inflation|cpi|gdp|gva|sdf|msf|"
        r"standing (?:deposit|facility)|policy stance|policy rates?|"
        r"liquidity|annual report|minutes|basis points|rate cut|rate hike|stance|projection|borrowings?|"
        r"(?:deputy )?governor|vot(?:e|ed|es|ing)|dissent\w*"
    ),
    library_description="RBI minutes and reports",
    chairs=Chairs(
        asked=r"\bwho\b[^?]*\bgovernor\b|\bwho chaired\b",
        titled_name=r"(?:Dr\.|Shri|Smt\.|Mr\.|Prof\.) [^,;]{3,60}?",
        # "Dr. Viral V. Acharya, Deputy Governor in charge of monetary policy – and was chaired by Shri
        # Shaktikanta Das, Governor."
        offices=(
            Office(
                "Deputy Governor",
                holder=r"({title}), Deputy Governor in charge of monetary policy\b",
                asked=r"\bdeputy governors?\b",
                title="Deputy Governor in charge of monetary policy",
            ),
            Office("Governor", holder=r"\bchaired by ({title}), Governor\b", chairs=True),
        ),
        query="the meeting was attended by all the members and was chaired by the Governor",
    ),
    # What a meeting's resolution says of the policy rate, as a search for it in one document.
    decision_queries=(
        (
            "repo",
            "the MPC decided to keep, reduce or increase the policy repo rate under the liquidity adjustment facility",
        ),
    ),
    # Worded after the resolutions' own sentences: in the top 4 passages of 36 of the 37 shipped
    # minutes that state such a decision (the first wording tried, after 2022's alone: 33).
    stance_query=(
        "The MPC also decided to maintain, continue with or change the stance of monetary policy: accommodative, "
        "neutral, withdrawal of accommodation"
    ),
    compare_aspects=("policy repo rate", "policy stance", "CPI inflation projection", "real GDP growth"),
    composers=(
        "stance",
        "chair",
        "member_statement",
        "member_vote",
        "magnitude_count",
        "vote_count",
        "each_meeting",
    ),
    fiscal_year_start_month=4,
    own_words=(
        "RBI",
        "Reserve Bank",
        "MPC",
        "Monetary Policy Committee",
        "Governor",
        "Shri",
        "Smt",
        "crore",
        "lakh",
        "repo",
        "SDF",
        "MSF",
        "CRR",
        "SLR",
        "LAF",
        "liquidity adjustment facility",
        "standing deposit facility",
        "marginal standing facility",
        "withdrawal of accommodation",
    ),
)
