"""The quick word count in front of ``is_header_line`` must never change its answer: a word it
counts as surely kept has to still be a word of the header's rest, whatever the line. Checked on
generated lines built from the patterns' own vocabulary and its edge cases, and on examples."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from research.ingest.statement_periods import header_rest, is_header_line, surely_kept_words

# Tokens chosen to meet every pattern and its boundaries: dates, durations, years with and without
# "FY", change labels, filler, and words that a match could cut short.
TOKENS = [
    "Three", "Months", "Ended", "12", "Weeks", "weeks", "fifty-two", "Fiscal", "Year", "Quarters", "Second",
    "quarter", "July", "Sept.", "Dec", "December", "1,", "30,", "2023", "2022", "FY2024", "FY", "XFY2023",
    "19", "20", "Inc/", "(Dec)", "Inc/Decline", "inc/decx", "Increase/(Decrease)", "%", "Change", "%change",
    "variance", "Favorable", "As", "of", "(Unaudited)", "(in", "millions)", "for", "the", "and", "Net", "sales",
    "Adjusted", "repo", "rate", "per", "cent", "6.5", "Q1", "a", "é", "Junes", "ab12-month", "(3)", "$",
]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=12), st.sampled_from([" ", "", "  "]))
def test_every_word_counted_as_kept_is_still_a_word_of_the_rest(tokens: list[str], glue: str) -> None:
    line = glue.join(tokens)
    assert surely_kept_words(line) <= len(re.findall(r"[A-Za-z]{2,}", header_rest(line)))


def test_prose_is_counted_out_and_the_patterns_words_are_not() -> None:
    assert surely_kept_words("The MPC noted that headline inflation eased to 5.1 per cent in January 2024") == 9
    assert surely_kept_words("Three Months Ended July 1, 2023 and June 25, 2022 (Unaudited)") == 0
    # "XFY" and "Decline" could be cut short by a match ("FY2023", "Inc/Dec"), so they are not counted.
    assert surely_kept_words("Segment XFY2023 Inc/Decline Total") == 2
    assert surely_kept_words("Adjusted As of") == 1


def test_header_lines_are_still_read_as_headers() -> None:
    assert is_header_line("Three Months Ended Nine Months Ended")
    assert is_header_line("July 1, 2023 June 25, 2022")
    assert is_header_line("Quarters Ended March 31, 2023 2022 Inc/ (Dec)")
    assert is_header_line("Adjusted FY2024 FY2023 % Change")
    assert not is_header_line("The repo rate was kept at 6.5 per cent in June 2024 by the committee")
    assert not is_header_line("Net sales 2023 2022 Products Services")
