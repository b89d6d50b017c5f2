"""Every Skiff case against the strict reference: golden ones decode (or encode) to exactly their base's data,
corrupt and nonconforming ones are refused for the reason their kind says; `either` bases hold the upstream
reading; the seed's byte examples are our encoder's bytes; the manifest alone rebuilds every file; generation is
reproducible and the case seed changes bytes, never data."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.model import OWN_RULES, Case
from parquet_conformance.corpus.skiff import TRACK
from parquet_conformance.corpus.skiff.catalog import all_bases, all_cases
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.generators.skiff import codec, reference, tokens, yson
from parquet_conformance.generators.skiff.mutations import MutationError, parse
from parquet_conformance.generators.skiff.schema import SkiffSchemaError

CASES = {c.id: c for c in all_cases()}


def run_reference(case: Case, lenient: bool = False, seed: int = 0) -> dict:
    doc = reference.load(TRACK.build(case, seed)[0])
    if case.op == "decode":
        return tokens.rows_data(reference.decode(doc, lenient=lenient))
    return tokens.streams_data(doc["format"], reference.encode(doc, lenient=lenient))


def test_catalog_size_shape_and_citations() -> None:
    cases = all_cases()
    assert len(cases) >= 150
    assert {c.kind for c in cases} == {"golden", "nonconforming", "corrupt"}
    assert {c.op for c in cases} == {"decode", "encode"}
    for c in cases:
        assert c.id.startswith("skiff/") and c.base.startswith("skiff-") and set(c.expect) == {"codec"}, c.id
        assert c.expect["codec"] in (("read", "either") if c.kind == "golden" else ("reject", "either")), c.id
        for cite in c.citations:
            assert cite.quote and (cite.seed == "shared/seeds/004" or " @ " in cite.source
                                   or cite.source == OWN_RULES), (c.id, cite)
        assert any(cite.seed == "shared/seeds/004" for cite in c.citations), c.id
        assert c.expect["codec"] != "either" or "spec-notes.md#skiff" in c.notes, c.id
    assert Counter(c.op for c in cases if c.kind == "golden")["encode"] >= 50


@pytest.mark.parametrize("case_id", list(CASES))
def test_reference_concludes_what_the_kind_says(case_id: str) -> None:
    case = CASES[case_id]
    expected = TRACK.base_expected(case.base)
    if case.kind == "golden":
        assert run_reference(case) == expected
        return
    refusals = {("decode", "nonconforming"): (SkiffSchemaError,),
                ("decode", "corrupt"): (codec.SkiffDecodeError, yson.YsonError),
                ("encode", "nonconforming"): (SkiffSchemaError, codec.SkiffEncodeError),
                ("encode", "corrupt"): (codec.SkiffEncodeError,)}[case.op, case.kind]
    with pytest.raises(refusals):
        run_reference(case)


EITHER_LENIENT = [c.id for c in all_cases() if c.expect["codec"] == "either" and all_bases()[c.base].lenient]


@pytest.mark.parametrize("case_id", EITHER_LENIENT)
def test_either_bases_hold_the_upstream_reading(case_id: str) -> None:
    case = CASES[case_id]
    assert run_reference(case, lenient=True) == TRACK.base_expected(case.base)


def test_seed_examples_are_our_encoders_bytes() -> None:
    """The seed family's bases give the seed's bytes explicitly; our encoder writes exactly those bytes."""
    seed_bases = [b for b in all_bases().values() if b.name.startswith("skiff-seed-")]
    assert len(seed_bases) == 26
    for base in seed_bases:
        doc = {"format": base.format, "rows": [list(r) for r in base.rows]}
        if base.op == "decode":
            assert reference.input_stream(doc).hex() == base.stream, base.name
        else:
            assert [s.hex() for s in reference.encode(doc)] == list(base.streams or ()), base.name


def test_the_manifest_alone_rebuilds_every_file(tmp_path: Path) -> None:
    manifest = generate(tmp_path, only="skiff/*", tracks=[TRACK]).to_json()
    assert manifest["tracks"] == ["skiff"] and len(manifest["cases"]) == len(CASES)
    for entry in manifest["cases"]:
        steps = [TRACK.parse_mutation(m) for m in entry["mutations"]]
        assert [s.to_json() for s in steps] == entry["mutations"], entry["id"]
        case = CASES[entry["id"]]
        data, _ = TRACK.build(Case(**{**case.__dict__, "mutations": tuple(steps)}), entry["seed"])
        assert hashlib.sha256(data).hexdigest() == entry["sha256"] == hashlib.sha256(
            (tmp_path / entry["file"]).read_bytes()).hexdigest(), entry["id"]
        assert entry["op"] == case.op and entry["extensions"] is None
    for name, base in manifest["bases"].items():
        expected = json.loads((tmp_path / base["expected"]).read_text())
        assert data_hash(expected) == base["data_hash"] and base["baseline_case"] is None, name
        assert reference.load((tmp_path / base["file"]).read_bytes())


def test_case_seed_changes_yson_spelling_never_data(tmp_path: Path) -> None:
    first = generate(tmp_path / "a", only="skiff/gen/*", tracks=[TRACK]).to_json()
    second = generate(tmp_path / "b", seed=1, only="skiff/gen/*", tracks=[TRACK]).to_json()
    again = generate(tmp_path / "c", only="skiff/gen/*", tracks=[TRACK]).to_json()
    assert [c["sha256"] for c in first["cases"]] == [c["sha256"] for c in again["cases"]]
    changed = [a["id"] for a, b in zip(first["cases"], second["cases"], strict=True) if a["sha256"] != b["sha256"]]
    assert len(changed) >= 20 and all(c.endswith("/decode") for c in changed)
    assert first["bases"] == second["bases"]
    for cid in changed:  # other bytes, same rows
        for root, manifest in ((tmp_path / "a", first), (tmp_path / "b", second)):
            entry = next(c for c in manifest["cases"] if c["id"] == cid)
            if entry["kind"] == "golden":
                rows = tokens.rows_data(reference.decode(reference.load((root / entry["file"]).read_bytes())))
                assert data_hash(rows) == manifest["bases"][entry["base"]]["data_hash"], cid


@pytest.mark.parametrize(("step", "message"), [
    ({"mutation": "nope"}, "unknown mutation 'nope'"),
    ({"mutation": "cut_row", "rows": 1}, "mutation 'cut_row' has no parameter 'rows'"),
    ({"mutation": "overwrite_stream", "at": "x", "hex": "00"}, "mutation 'overwrite_stream': at='x' is not"),
    ({"mutation": "set_value", "row": 0}, "mutation 'set_value': .*missing"),
])
def test_a_bad_mutation_is_one_error_naming_it(step: dict, message: str) -> None:
    with pytest.raises(MutationError, match=message):
        parse(step)


def test_inspect_reports_what_the_reference_concludes() -> None:
    golden = TRACK.build(CASES["skiff/seed/yson32-map/decode"], 0)[0]
    report = reference.inspect_document(golden)
    assert report["valid"] and report["op"] == "decode" and report["tables"] == ["tuple<yson32;>"]
    assert "row 0: table 0" in reference.describe(report)
    broken = reference.inspect_document(TRACK.build(CASES["skiff/corrupt/string32-past-end/decode"], 0)[0])
    assert not broken["valid"] and "needs 6 bytes, 3 remain" in broken["error"]
    assert not reference.inspect_document(b"\x00PAR1")["valid"]
