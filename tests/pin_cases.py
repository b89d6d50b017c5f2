"""Pins every case's bytes: `python tests/pin_cases.py [CORPUS]` writes tests/data/case-sha256.json from a corpus
(default: one generated afresh). tests/test_corpus.py checks the default corpus against it, so that a change to the
generators that alters an existing case's bytes is seen, and named in its commit, never slipped in."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

PINS = Path(__file__).parent / "data" / "case-sha256.json"


def case_digests(corpus: Path) -> dict[str, str]:
    return {c["id"]: c["sha256"] for c in json.loads((corpus / "manifest.json").read_text())["cases"]}


def main() -> None:
    from parquet_conformance.corpus.build import generate

    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tmp)
        if len(sys.argv) == 1:
            generate(corpus)
        pins = case_digests(corpus)
    PINS.write_text(json.dumps(dict(sorted(pins.items())), indent=0) + "\n")
    print(f"pinned {len(pins)} cases in {PINS}")


if __name__ == "__main__":
    main()
