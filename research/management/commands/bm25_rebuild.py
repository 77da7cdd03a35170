"""Build the shared BM25 index again from the database as one segment and publish it as a new
version: reclaims the rows of deleted chunks that big segments keep (merges only rewrite small
segments), or rebuilds after the index directory was lost. Safe while the portal runs."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from research.retrieval.bm25 import LAST_PUBLISH, corpus_index_rebuild, store_root


class Command(BaseCommand):
    help = "Rebuild the shared BM25 index from the database and publish it as a new library version."

    def handle(self, *args: Any, **options: Any) -> None:
        began = time.perf_counter()
        version = corpus_index_rebuild()
        self.stdout.write(
            f"BM25 index version {version}: {LAST_PUBLISH['added']:,} passages in "
            f"{time.perf_counter() - began:.1f} s, under {store_root()}"
        )
