"""The document type guessed from a file name: its words without dates or numbers, whole words only."""

from __future__ import annotations

import pytest

from research.ingest.metadata import series_key


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("Reserve_Bank_of_India_06-08-2024.pdf", "reserve_bank_of_india"),
        ("MPC-Minutes 2024 (Aug).PDF", "mpc_minutes_aug"),
        # 71 characters joined: the words that do not fit are left out, not the last one cut in half
        (
            "rbi_monetary_policy_committee_minutes_february_2025_meeting_resolution_final.txt",
            "rbi_monetary_policy_committee_minutes_february_meeting",
        ),
        ("a" * 70 + ".txt", "a" * 60),  # one word longer than the field: cut, as it must fit
        ("2024-08-06.pdf", ""),
    ],
)
def test_a_type_from_a_file_name_keeps_whole_words(filename: str, expected: str) -> None:
    assert series_key(filename) == expected
    assert len(series_key(filename)) <= 60
