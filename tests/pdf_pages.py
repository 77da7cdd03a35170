"""Look at a PDF the way a reader does: render each page to an image (PDFium, through pypdfium2)
and read its text layer (pypdf); the images are saved under test-artifacts/exports/."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf
import pypdfium2

from tests.conftest import ARTIFACTS

A4_RATIO = 297 / 210


def pdf_pages(pdf: bytes, name: str) -> tuple[list[str], list[Path]]:
    """``(text of each page, PNG of each page)``; asserts each page is an A4 page with ink on it
    and none of it is a solid block (a rendering failure)."""
    assert pdf.startswith(b"%PDF-"), pdf[:20]
    texts = [page.extract_text() or "" for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]
    out = ARTIFACTS / "exports"
    out.mkdir(parents=True, exist_ok=True)
    images = []
    document = pypdfium2.PdfDocument(pdf)
    for i in range(len(document)):
        image = document[i].render(scale=1.5).to_pil().convert("L")
        width, height = image.size
        assert abs(height / width - A4_RATIO) < 0.01, image.size
        histogram = image.histogram()
        dark = sum(histogram[:128]) / (width * height)
        assert 0.003 < dark < 0.35, f"page {i + 1}: {dark:.1%} dark pixels"
        path = out / f"{name}-page{i + 1}.png"
        image.save(path)
        images.append(path)
    document.close()
    return texts, images
