"""The shipped corpus's vectors in the repository: present for every manifest entry (so a clean
machine never embeds the demo corpus), exactly the model's output, and found when the machine's
own cache is empty."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.conf import settings

from research.management.commands.research_embed_seed import corpus_texts
from research.retrieval.embed_cache import cache_key, cached_vectors
from research.retrieval.embeddings import get_embedder


@pytest.fixture(scope="module")
def texts() -> dict[str, list[str]]:
    return corpus_texts(Path(settings.RESEARCH_DEMO_CORPUS_DIR))


def test_every_corpus_file_has_its_vectors_in_the_repository(texts: dict[str, list[str]]) -> None:
    embedder, seed = get_embedder(), Path(settings.RESEARCH_EMBED_SEED_DIR)
    assert len(texts) == 42  # 41 MPC minutes and the Annual Report (data/rbi/manifest.json)
    missing = [name for name, t in texts.items() if not (seed / f"{cache_key(embedder, t)}.npy").exists()]
    assert not missing, f"run `manage.py research_embed_seed` (chunking or model changed): {missing[:3]}"
    assert sorted(p.name for p in seed.glob("*.npy")) == sorted(f"{cache_key(embedder, t)}.npy" for t in texts.values())


def test_the_seed_is_the_models_output_and_is_used_with_an_empty_cache(
    texts: dict[str, list[str]], settings: Any, tmp_path: Path
) -> None:
    settings.RESEARCH_EMBED_CACHE_DIR = str(tmp_path)  # this machine has embedded nothing
    embedder = get_embedder()
    name = min(texts, key=lambda n: len(texts[n]))  # the shortest minutes: a fast model check
    shipped = cached_vectors(embedder, texts[name])
    assert shipped is not None and shipped.shape == (len(texts[name]), embedder.dim)
    fresh = embedder.embed(texts[name][:4])
    assert np.allclose(shipped[:4], fresh, atol=1e-5)
    assert cached_vectors(embedder, [*texts[name][:-1], texts[name][-1] + " (edited)"]) is None
    settings.RESEARCH_EMBED_SEED_DIR = ""
    assert cached_vectors(embedder, texts[name]) is None  # no seed, empty cache: the model must run


def test_every_shipped_filing_has_its_vectors_in_the_repository() -> None:
    from research.management.commands.research_embed_seed import filings_texts

    embedder, seed = get_embedder(), Path(settings.RESEARCH_FILINGS_EMBED_SEED_DIR)
    texts = filings_texts(Path(settings.RESEARCH_FILINGS_DIR))
    assert len(texts) == 10  # data/filings/manifest.json: the filings golden set's documents
    missing = [name for name, t in texts.items() if not (seed / f"{cache_key(embedder, t)}.npy").exists()]
    assert not missing, f"run `manage.py research_embed_seed` (PDF parsing, chunking or model changed): {missing[:3]}"
    assert sorted(p.name for p in seed.glob("*.npy")) == sorted(f"{cache_key(embedder, t)}.npy" for t in texts.values())
