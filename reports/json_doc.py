"""results.json: the run as one JSON document (schema: conformance/harness/schemas/results.schema.json)."""

from __future__ import annotations

import json
from pathlib import Path

from parquet_conformance.reports.model import ResultsDocument


class Json:
    name = "json"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        path = out / "results.json"
        path.write_text(json.dumps(doc.to_json(), indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
        return [path]


FORMAT = Json()
