"""The JSON Schema files, derived from the records and committed so that other languages can validate:
corpus/schemas/manifest.schema.json, conformance/harness/schemas/protocol.schema.json and
conformance/harness/schemas/results.schema.json.

    python -m parquet_conformance.reports.schemas           # rewrite them from the records
    python -m parquet_conformance.reports.schemas --check   # exit 1 if one differs (tests/test_schemas.py)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from parquet_conformance.conformance.harness.derived import document_schema, manifest_schema, protocol_schema
from parquet_conformance.conformance.harness.model import Cell
from parquet_conformance.reports.model import ResultsDocument

ROOT = Path(__file__).resolve().parent.parent
FILES = {
    "manifest": ROOT / "corpus" / "schemas" / "manifest.schema.json",
    "results": ROOT / "conformance" / "harness" / "schemas" / "results.schema.json",
    "protocol": ROOT / "conformance" / "harness" / "schemas" / "protocol.schema.json",
}


def results_schema() -> dict[str, Any]:
    return document_schema("parquet-conformance results.json", ResultsDocument, (Cell,))


def rendered() -> dict[str, str]:
    docs = {"manifest": manifest_schema(), "results": results_schema(), "protocol": protocol_schema()}
    return {name: json.dumps(doc, indent=1, ensure_ascii=True) + "\n" for name, doc in docs.items()}


def main(argv: list[str]) -> int:
    texts = rendered()
    stale = [n for n, text in texts.items() if not FILES[n].is_file() or FILES[n].read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for name in stale:
            print(f"{FILES[name]} differs from the records; run python -m parquet_conformance.reports.schemas")
        return 1 if stale else 0
    for name in stale:
        FILES[name].parent.mkdir(parents=True, exist_ok=True)
        FILES[name].write_text(texts[name], encoding="utf-8")
        print(f"wrote {FILES[name]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
