"""Split the RBI Annual Report 2023-24 text (one block per PDF page) into form-feed pages, each
starting with its printed page number; the running header fused to that number is dropped."""

import re
import sys

src, dst = sys.argv[1], sys.argv[2]
with open(src) as fh:
    blocks = fh.read().split("\n\n")
pages, missing = [], []


def strip_header(s: str, label: str, strict: bool) -> str | None:
    start = 0
    while True:
        idx = s.find(label, start)
        if idx < 0 or idx > 110:
            return None
        after = s[idx + len(label) : idx + len(label) + 1]
        before_ok = idx == 0 or not s[idx - 1].isdigit() or s[:idx].endswith("2023-24")
        if not re.search(r"[a-z]", s[:idx]) and before_ok and (not strict or not after.isdigit()):
            return s[idx + len(label) :]
        start = idx + 1


for i, block in enumerate(blocks):
    s = block.lstrip("\n")
    if i >= 20:  # body: block 20 is printed page 1
        label = str(i - 19)
        body = strip_header(s, label, True) or strip_header(s, label, False)
        if body is None:
            missing.append(i)
            body = s
    else:  # front matter carries roman page numbers
        m = re.match(r"^(x{0,2}(?:ix|iv|v?i{0,3}))(?=[A-Z]|Page)", s)
        if i < 4 or not m or not m.group(1):
            continue  # cover, board list, officers, contents: no printed page number
        label = m.group(1)
        body = s[len(label) :]
    pages.append(label + "\n" + body.strip("\n"))
with open(dst, "w") as fh:
    fh.write("\f".join(pages) + "\n")
print(len(pages), "pages; header not found on blocks", missing)
