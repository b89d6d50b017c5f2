"""Classify a cell's outcome against the case's expectation for the adapter's role.

"Same data" means the base's expected data, or the adapter's own reading of the unmodified
base (its baseline, the `base/<name>` case): a reader whose representation differs from
ours (fastparquet's NaN for null floats) is judged on whether the extension changed what it
returns, and its baseline difference is reported once, on `base/<name>`.
"""

from __future__ import annotations

VERDICTS = ("pass", "fail:wrong-data", "fail:crash", "fail:hang", "fail:rejected-valid", "fail:accepted-invalid",
            "fail:wrong-metadata", "skip")


def expectation(expect: dict[str, str], role: str) -> str:
    """An aware reader meets files without its extension as a legacy reader does."""
    return expect.get(role) or expect["legacy"]


def classify(expected: str, outcome: str, data_hash: str | None, good_hashes: set[str],
             decode: str | None = None, metadata: str | None = None) -> str:
    """`decode`: the metadata an aware reader must use ("flatbuffers", "thrift", "either"); checked
    only when the reader reports which it used."""
    if outcome == "unavailable":
        return "skip"
    if outcome in ("crash", "oom"):
        return "fail:crash"
    if outcome == "timeout":
        return "fail:hang"
    if outcome == "read":
        if data_hash not in good_hashes:
            return "fail:wrong-data"
        if expected == "reject":
            return "fail:accepted-invalid"
        if decode in ("flatbuffers", "thrift") and metadata and metadata != decode:
            return "fail:wrong-metadata"
        return "pass"
    if outcome == "rejected":
        return "fail:rejected-valid" if expected == "read" else "pass"
    raise ValueError(f"unknown outcome {outcome!r}")


def judge_cell(case: dict, manifest: dict, role: str, outcome: str, data_hash: str | None,
               metadata: str | None, baseline: str | None) -> tuple[str, str]:
    """(expectation, verdict) of one cell. `baseline`: the adapter's data hash on `base/<base>`,
    which counts as the same data for every case but the base itself."""
    expected = expectation(case["expect"], role)
    good = {manifest["bases"][case["base"]]["data_hash"]}
    if baseline and not case["id"].startswith("base/"):
        good.add(baseline)
    decode = (case.get("decode") or {}).get(role)
    return expected, classify(expected, outcome, data_hash, good, decode, metadata)
