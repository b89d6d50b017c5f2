"""`parquet-conformance extend`: a vendor's payload in any struct of an existing file (generators/parquet/extend.py).

Round trips: base files extended in footer structs and in structs outside the footer (page headers, the page index,
bloom filter headers) with seeded random payloads, raw, with a UUID and framed as each profile; `inspect` finds each
extension with its struct, UUID and framing, the strict decoder accepts the file, and pyarrow reads exactly the
base's data. The slow tier reads every extended file with every available reader (test_every_reader_reads)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from parquet_conformance.generators.canonical import canonical_table, data_hash
from parquet_conformance.generators.parquet import profiles
from parquet_conformance.generators.parquet.bases import base_bytes, base_hash
from parquet_conformance.generators.parquet.extend import ExtendError, Selector, extend, framed
from parquet_conformance.generators.parquet.footer import read_footer, read_tail
from parquet_conformance.generators.parquet.inspect import inspect_bytes
from parquet_conformance.generators.parquet.reference import read_exactly
from parquet_conformance.generators.parquet.strict import parse_file
from tests.helpers import CLI
from tests.test_extensions import append_extension

VENDOR = "6f1c3a52-8e0d-4b7a-9c55-2d9e4f0a1b3c"


@dataclass(frozen=True)
class Trip:
    id: str
    base: str
    struct: str
    where: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    paths: tuple[str, ...] = ()  # the structs it must land in

    def payload(self) -> bytes:
        rng = random.Random(zlib.crc32(self.id.encode()))
        return rng.randbytes(rng.randrange(0, 400))

    def build(self) -> bytes:
        return extend(base_bytes(self.base), self.payload(), struct=self.struct, where=self.where,
                      **self.options).data


TRIPS = [
    Trip("file-metadata-uuid", "flat", "FileMetaData", (), {"uuid": VENDOR}, ("FileMetaData",)),
    Trip("file-metadata-spec-example", "flat", "FileMetaData", (), {"profile": "spec-example"}, ("FileMetaData",)),
    Trip("column-metadata-path", "nested", "ColumnMetaData", ("path=rec.b.c",),
         {"profile": "migration", "crc": "castagnoli"}, ("row_groups[0].columns[4].meta_data",)),
    Trip("column-metadata-row-group", "multi-row-group", "ColumnMetaData", ("row_group=2", "column=0"),
         {"uuid": VENDOR, "header": "zigzag"}, ("row_groups[2].columns[0].meta_data",)),
    Trip("schema-element-group", "nested", "SchemaElement", ("path=rec.b",), {"uuid": VENDOR}, ("schema[12]",)),
    Trip("key-value", "flat", "KeyValue", ("key=ARROW:schema",), {"uuid": VENDOR}, ("key_value_metadata[0]",)),
    Trip("type-defined-order", "nested", "TypeDefinedOrder", ("path=rec.b.c",), {"uuid": VENDOR},
         ("column_orders[4].TYPE_ORDER",)),
    Trip("page-header-dictionary", "page-index", "PageHeader", ("row_group=1", "column=1", "page=0"),
         {"profile": "arrow-prototype"}, ("row_groups[1].columns[1].pages[0]",)),
    Trip("page-statistics", "flat", "Statistics", ("column=1", "page=0"), {"uuid": VENDOR},
         ("row_groups[0].columns[1].pages[0].data_page_header.statistics",)),
    Trip("data-page-header-v2", "data-page-v2", "DataPageHeaderV2",
         ("at=row_groups[0].columns[0].pages[1].data_page_header_v2",), {"uuid": VENDOR},
         ("row_groups[0].columns[0].pages[1].data_page_header_v2",)),
    Trip("offset-index", "page-index", "OffsetIndex", ("row_group=0", "column=2"), {"uuid": VENDOR},
         ("row_groups[0].columns[2].offset_index",)),
    Trip("column-index-all", "page-index", "ColumnIndex", ("all",), {"profile": "spec-example", "uuid": VENDOR},
         tuple(f"row_groups[{g}].columns[{c}].column_index" for g in range(2) for c in range(5))),
    Trip("bloom-filter", "page-index", "BloomFilterHeader", ("index=-1",), {"uuid": VENDOR},
         ("row_groups[1].columns[2].bloom_filter",)),
    Trip("offset-index-parquet-java", "writer-parquet-java", "OffsetIndex", ("index=0",), {"uuid": VENDOR},
         ("row_groups[0].columns[0].offset_index",)),
]


@pytest.mark.parametrize("trip", TRIPS, ids=lambda t: t.id)
def test_round_trip(trip: Trip) -> None:
    data = base_bytes(trip.base)
    payload = trip.payload()
    result = extend(data, payload, struct=trip.struct, where=trip.where, **trip.options)
    assert [e["path"] for e in result.placed] == list(trip.paths)
    body = framed(payload, trip.options.get("uuid"), trip.options.get("profile"), trip.options.get("crc", "zlib"))
    report = inspect_bytes(result.data)
    assert report["valid"] and report["strict"] and not report["findings"], report["findings"]
    found = {e["path"]: e for e in report["extensions"]}
    assert set(found) == set(trip.paths)  # the bases have none of their own
    profile = trip.options.get("profile")
    tag = trip.options["uuid"].replace("-", "") if "uuid" in trip.options else profiles.PROFILE_UUIDS[profile].hex()
    for path in trip.paths:
        e = found[path]
        assert (e["struct"], e["header"], e["length"], e["uuid"]) == (
            trip.struct, trip.options.get("header", "spec"), len(body), tag)
        assert e["profile"] == (profile if "uuid" not in trip.options else None)
        assert e["framing"] == ({"arrow-prototype": "arrow-prototype"}.get(profile, "spec") if profile else None)
        assert e["framing_ok"] is (True if profile else None)
        assert e["framing_crc"] == (trip.options.get("crc", "zlib") if profile else None)
    parse_file(result.data)  # the strict decoder
    assert data_hash(canonical_table(read_exactly(result.data))) == base_hash(trip.base)


def test_file_metadata_is_the_specs_append_extension() -> None:
    """In the spec's header form, a raw payload in the FileMetaData is AppendExtension on the footer bytes."""
    data, payload = base_bytes("flat"), random.Random(1).randbytes(300)
    offset, length = read_tail(data)
    footer = append_extension(data[offset:offset + length], payload)
    out = extend(data, payload, struct="FileMetaData")
    assert out.data == data[:offset] + footer + len(footer).to_bytes(4, "little") + b"PAR1"
    assert any("no UUID" in w for w in out.warnings)


def data_region(data: bytes) -> int:
    return read_tail(data)[0]


def test_page_level_extension_moves_data_and_fixes_offsets() -> None:
    """An OffsetIndex early in the page index grows: everything after it moves, pointers follow (strict decoder)."""
    data = base_bytes("page-index")
    out = extend(data, b"x" * 1000, struct="OffsetIndex", where=["index=0"], uuid=VENDOR).data
    assert data_region(out) == data_region(data) + 4 + 2 + 1016  # header, ULEB128(1016), payload and UUID
    parse_file(out)


def test_an_encrypted_footers_plaintext_struct() -> None:
    """PARE: the FileCryptoMetaData is plaintext and unsigned; its extension leaves the encrypted module as it was."""
    data = base_bytes("encrypted-footer")
    out = extend(data, b"abc", struct="FileCryptoMetaData", uuid=VENDOR).data
    report = inspect_bytes(out)
    assert report["strict"] and [e["struct"] for e in report["extensions"]] == ["FileCryptoMetaData"]
    before, after = read_footer(data)[0], read_footer(out)[0]
    module = lambda f: bytes(f.buf[f.metadata.end:f.footer_end])  # noqa: E731
    assert module(before) == module(after) and len(out) == len(data) + 4 + 1 + 19


def test_an_existing_extension_is_refused_replaced_or_doubled() -> None:
    once = extend(base_bytes("flat"), b"first", struct="ColumnMetaData", where=["column=0"], uuid=VENDOR).data
    with pytest.raises(ExtendError, match="has an extension already"):
        extend(once, b"second", struct="ColumnMetaData", where=["column=0"], uuid=VENDOR)
    replaced = extend(once, b"second!", struct="ColumnMetaData", where=["column=0"], existing="replace").data
    (ext,) = inspect_bytes(replaced)["extensions"]
    assert ext["length"] == 7 and ext["uuid"] is None
    parse_file(replaced)
    doubled = extend(once, b"second" * 3, struct="ColumnMetaData", where=["column=0"], existing="add", uuid=VENDOR)
    report = inspect_bytes(doubled.data)
    assert [e["length"] for e in report["extensions"]] == [21, 34]
    assert [f["rule"] for f in report["findings"]] == ["extension"] and not report["strict"]


def test_a_page_level_replacement_moves_data_back() -> None:
    data = base_bytes("page-index")
    big = extend(data, b"x" * 500, struct="PageHeader", where=["index=0"], uuid=VENDOR).data
    small = extend(big, b"", struct="PageHeader", where=["index=0"], existing="replace", uuid=VENDOR).data
    assert data_region(small) == data_region(data) + 4 + 1 + 16
    parse_file(small)
    assert data_hash(canonical_table(read_exactly(small))) == base_hash("page-index")


@pytest.mark.parametrize(("struct", "where", "message"), [
    ("ColumnMetadata", [], "unknown struct 'ColumnMetadata': did you mean ColumnMetaData?"),
    ("Nope", [], "unknown struct 'Nope'"),
    ("ColumnMetaData", ["column=x"], "column takes a number"),
    ("ColumnMetaData", ["row_group=-1"], "row_group counts from 0"),
    ("ColumnMetaData", ["colour=1"], "the filters are row_group=N"),
    ("ColumnMetaData", ["path="], "the filters are"),
    ("ColumnMetaData", ["column=1", "column=2"], "column given twice"),
    ("ColumnMetaData", ["all", "index=0"], "exclude each other"),
])
def test_bad_selectors(struct: str, where: list[str], message: str) -> None:
    with pytest.raises(ExtendError, match=message.replace("?", r"\?")):
        Selector.parse(struct, where)


@pytest.mark.parametrize(("base", "struct", "where", "message"), [
    ("flat", "ColumnMetaData", [], r"10 ColumnMetaData match \(row_groups\[0\]\.columns\[0\]\.meta_data, .*all"),
    ("flat", "ColumnMetaData", ["column=10"], "no ColumnMetaData matches --where column=10"),
    ("flat", "ColumnMetaData", ["index=10"], "index=10: 10 ColumnMetaData match"),
    ("flat", "OffsetIndex", [], "this file has no OffsetIndex"),
    ("flat", "KeyValue", ["key=nope"], "no KeyValue matches --where key=nope"),
    ("plaintext-footer", "FileMetaData", [], "the footer is signed"),
])
def test_selections_that_do_not_pick_one(base: str, struct: str, where: list[str], message: str) -> None:
    with pytest.raises(ExtendError, match=message):
        extend(base_bytes(base), b"", struct=struct, where=where, uuid=VENDOR)


@pytest.mark.parametrize(("options", "message"), [
    ({"uuid": "not-a-uuid"}, "bad --uuid 'not-a-uuid'"),
    ({"profile": "par3"}, "final form's file tail"),
    ({"profile": "flatbuffers"}, "unknown --profile 'flatbuffers'"),
    ({"profile": "arrow-prototype", "crc": "castagnoli"}, "--crc goes with"),
    ({"header": "short"}, "unknown --header 'short'"),
    ({"existing": "merge"}, "unknown --existing 'merge'"),
])
def test_bad_options(options: dict[str, str], message: str) -> None:
    with pytest.raises(ExtendError, match=message):
        extend(base_bytes("flat"), b"", struct="FileMetaData", **options)


def test_not_parquet() -> None:
    with pytest.raises(ExtendError, match="not a Parquet file"):
        extend(b"PAR1" + b"\x00" * 20 + b"XXXX", b"", struct="FileMetaData")


def test_framing_checks_and_damage() -> None:
    fb = random.Random(2).randbytes(100)
    for profile in profiles.FRAMINGS:
        good = profiles.check_framing(profiles.frame(fb, profile))
        assert (good.profile, good.ok) == (profile, True)
        damaged = bytearray(profiles.frame(fb, profile))
        damaged[5] ^= 1
        bad = profiles.check_framing(bytes(damaged))
        assert (bad.profile, bad.ok) == (profile, False) and "crc32" in (bad.error or "")
    own = profiles.check_framing(profiles.frame(fb, "spec-example", bytes(16)))
    assert (own.profile, own.layout, own.ok) == (None, "spec", True)
    assert profiles.check_framing(fb + bytes(16)).layout is None
    extra = profiles.check_framing(b"!" + profiles.frame(fb, "migration"))
    assert extra.ok is False and "frames 112 of the 113 bytes" in (extra.error or "")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300)


def test_command_line_round_trip(tmp_path: Path) -> None:
    """extend, then inspect --json and its text, through the command line."""
    src, payload, out = tmp_path / "f.parquet", tmp_path / "p.bin", tmp_path / "g.parquet"
    src.write_bytes(base_bytes("page-index"))
    payload.write_bytes(b"vendor bytes")
    proc = cli("extend", str(src), "--struct", "OffsetIndex", "--where", "row_group=1", "--where", "column=0",
               "--payload-file", str(payload), "--profile", "spec-example", "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    (placed,) = json.loads(proc.stdout)["extensions"]
    assert placed["path"] == "row_groups[1].columns[0].offset_index" and placed["framing_ok"] is True
    report = json.loads(cli("inspect", str(out), "--json").stdout)
    assert report["extensions"] == [placed] and report["strict"]
    text = cli("inspect", str(out)).stdout
    assert "row_groups[1].columns[0].offset_index (OffsetIndex): header spec" in text
    assert "profile spec-example, framing spec zlib ok" in text
    again = cli("extend", str(src), "--struct", "FileMetaData", "--payload-file", str(payload), "--dry-run")
    assert again.returncode == 0 and "would be" in again.stdout and "FileMetaData (FileMetaData)" in again.stdout
    assert "warning: no UUID" in again.stderr


# -- the slow tier: every reader ------------------------------------------------------------------------


def _outcome(timed: Any) -> dict[str, Any]:
    from parquet_conformance.conformance.harness.model import outcome_fields

    flat = outcome_fields(timed.outcome)
    return {"outcome": str(flat["outcome"]), "data_hash": flat["data_hash"],
            "error": " ".join(f"{flat['error_class'] or ''}: {flat['error_message'] or ''}".split())[:300]
            if flat["error_class"] or flat["error_message"] else None}


def _fresh(path: Path, adapter: str) -> dict[str, Any]:
    """`parquet-conformance read FILE --adapter NAME --json` in a fresh process."""
    proc = cli("read", str(path), "--adapter", adapter, "--json")
    if proc.returncode != 0:
        return {"outcome": "cli-error", "error": proc.stderr.strip()[-300:]}
    report = json.loads(proc.stdout)
    return {"outcome": report["outcome"], "data_hash": report["data_hash"], "version": report["version"],
            "implementation": report["implementation"], "error": report["error"]}


ORACLES = ("pyarrow", "reference")


@pytest.mark.slow
def test_every_reader_reads(tmp_path: Path) -> None:
    """Each extended file read by every available Parquet adapter (one persistent worker each), against the adapter's
    own readings of the unmodified base (three: a reader whose reading of the base varies is not judged on that
    base's files). Anything but the base's data is confirmed in a fresh process with `parquet-conformance read
    FILE --adapter NAME --json` and recorded: a reader that rejects is a finding, not a failure of this test.
    Only pyarrow and the reference reader (our oracles) must read everything. The record goes to
    $EXTEND_READERS_JSON when set; the fresh confirmations are made for it, or for an oracle that failed (they
    decide nothing the test asserts, and a fresh process per file was 5 of its 6 minutes)."""
    from parquet_conformance.conformance import adapters
    from parquet_conformance.conformance.harness.model import Unavailable
    from parquet_conformance.conformance.harness.specs import AdapterSpec

    files = {}
    for trip in TRIPS:
        files[trip.id] = tmp_path / f"{trip.id}.parquet"
        files[trip.id].write_bytes(trip.build())
    bases = sorted({t.base for t in TRIPS})
    for base in bases:
        files[f"base:{base}"] = tmp_path / f"base-{base}.parquet"
        files[f"base:{base}"].write_bytes(base_bytes(base))
    record: dict[str, Any] = {}
    target = os.environ.get("EXTEND_READERS_JSON")
    for name in adapters.names("parquet"):
        worker = AdapterSpec(name).worker()
        try:
            if isinstance(worker.read("/nonexistent").outcome, Unavailable):
                record[name] = {"unavailable": worker.unavailable}
                continue
            info = worker.start()
            # a reader that is not an oracle, unless the record is wanted, only shows the harness holds: its hang is
            # one as well after 10 s (fastparquet's and clickhouse-v1's hangs took 80 of the test's 110 s at the
            # harness's own limit)
            limit = None if target or name in ORACLES else 10.0
            outcomes = {key: _outcome(worker.read(str(path), timeout_s=limit)) for key, path in files.items()}
            readings = {base: [outcomes[f"base:{base}"]] + [_outcome(worker.read(str(files[f"base:{base}"]),
                                                                                 timeout_s=limit))
                                                          for _ in range(2)] for base in bases}
        finally:
            worker.close()
        row: dict[str, Any] = {"version": info.version, "unstable_bases": [], "files": {}}
        for base, seen in readings.items():
            if len({(o["outcome"], o["data_hash"]) for o in seen}) > 1:
                row["unstable_bases"].append(base)
        for trip in TRIPS:
            got, seen = outcomes[trip.id], readings[trip.base]
            hashes = {o["data_hash"] for o in seen if o["outcome"] == "read"}
            verdict = "base unstable" if trip.base in row["unstable_bases"] else _verdict(got, hashes)
            entry: dict[str, Any] = {"verdict": verdict, "struct": trip.struct, "error": got["error"]}
            if entry["verdict"] not in ("read", "base not read", "base unstable") and (target or name in ORACLES):
                fresh = _fresh(files[trip.id], name)
                entry["fresh"] = {**fresh, "verdict": _verdict(fresh, hashes)}
            row["files"][trip.id] = entry
        record[name] = row
    if target:
        Path(target).write_text(json.dumps(record, indent=1))
    for oracle in ORACLES:
        verdicts = {k: v["verdict"] for k, v in record[oracle]["files"].items()}
        assert set(verdicts.values()) == {"read"}, (oracle, verdicts)


def _verdict(got: dict[str, Any], base_hashes: set[str | None]) -> str:
    if not base_hashes:
        return "base not read"
    if got["outcome"] == "read":
        return "read" if got["data_hash"] in base_hashes else "other data"
    return str(got["outcome"])
