"""How readers that misread would parse each corrupt extension case: our codec folds 32-bit quantities as
Thrift C++ (`cast`: up to 10 bytes, then int32) and Thrift Java / JavaScript (`shift`: each group shifted by
its shift mod 32) do, ends a struct at any byte with a low nibble of 0 as they do, and may parse from a buffer
that runs past the footer to the end of the file (`unbounded`). Each case's outcome under each model is pinned:
only the cases crafted to expose a misreading reader read under it (docs/spec-notes.md#corrupt-extensions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parquet_conformance.corpus.parquet.catalog import all_cases
from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.bases import base_bytes
from parquet_conformance.generators.parquet.footer import FooterError, read_tail
from parquet_conformance.generators.parquet.strict import parse_file

MODELS = ("cast", "shift", "cast-unbounded", "shift-unbounded")
ALL = frozenset(MODELS)
UNBOUNDED = frozenset({"cast-unbounded", "shift-unbounded"})
# case -> the models under which the file reads as a plausible footer; under every other model, and strictly, it fails
READS = {
    "corrupt/extension/length-2pow35-folds-to-fields": ALL,
    "corrupt/extension/length-2pow32-plus-payload": ALL,
    "corrupt/extension/length-11-bytes": frozenset({"shift", "shift-unbounded"}),
    "corrupt/extension/overshoot-into-tail": UNBOUNDED,
    "corrupt/extension/missing-stop/file-metadata/tail-stop": UNBOUNDED,
}
CASES = sorted(c.id for c in all_cases() if c.id.startswith("corrupt/extension/"))


def known_fields(buf: bytes, meta: thrift.Struct) -> dict[int, bytes]:
    """The FileMetaData's fields 1-9 (parquet.thrift), by their value bytes."""
    return {f.id: bytes(buf[f.header_end:f.end]) for f in meta.fields if 1 <= f.id <= 9}


def reads(buf: bytes, model: str) -> bool:
    """Whether a reader of that model decodes a FileMetaData with the base's fields, byte for byte."""
    int32, _, unbounded = model.partition("-")
    offset, length = read_tail(buf)
    try:
        meta = thrift.decode_struct(buf, offset, len(buf) if unbounded else offset + length, int32=int32)  # type: ignore[arg-type]
    except thrift.ThriftError:
        return False
    base = base_bytes("flat")
    return known_fields(buf, meta) == known_fields(base, parse_file(base).metadata)


def test_every_corrupt_extension_case_is_pinned() -> None:
    assert set(READS) <= set(CASES)
    assert len(CASES) >= 17


@pytest.mark.parametrize("case_id", CASES)
def test_how_a_misreading_reader_parses_it(case_id: str, corpus_dir: Path, manifest: dict) -> None:
    entry = next(e for e in manifest["cases"] if e["id"] == case_id)
    buf = (corpus_dir / entry["file"]).read_bytes()
    with pytest.raises(FooterError):
        parse_file(buf)
    if entry["mutations"][-1]["mutation"] in ("set_tail_magic", "truncate_in_footer"):
        return  # no PAR1 tail: every reader stops there
    got = {model for model in MODELS if reads(buf, model)}
    assert got == READS.get(case_id, frozenset())


def test_the_models_fold_as_the_runtimes_do() -> None:
    """2^35 (80 80 80 80 80 01): C++ casts the 64-bit value to 0; Java shifts the sixth group by 35 mod 32 = 3."""
    six = thrift.uleb(2**35)
    assert six == bytes.fromhex("808080808001")
    assert thrift.Reader(six, int32="cast").varint32() == 0
    assert thrift.Reader(six, int32="shift").varint32() == 8
    five = thrift.uleb(2**32 + 64)
    assert len(five) == 5
    assert thrift.Reader(five, int32="cast").varint32() == thrift.Reader(five, int32="shift").varint32() == 64
    assert thrift.Reader(thrift.uleb(2**31), int32="cast").varint32() == -(2**31)  # a negative length: refused
    eleven = thrift.uleb(64, pad_to=11)
    assert thrift.Reader(eleven, int32="shift").varint32() == 64
    with pytest.raises(thrift.ThriftError, match="longer than 10"):
        thrift.Reader(eleven, int32="cast").varint32()
    assert thrift.Reader(b"\x50", int32="cast").field_header(0) == (thrift.STOP, 0)  # 'P': a stop by its low nibble
    with pytest.raises(thrift.ThriftError, match="high nibble"):
        thrift.Reader(b"\x50", strict_varints=True).field_header(0)
    exact = thrift.Reader(b"\x50")
    assert exact.field_header(0) == (thrift.STOP, 0) and exact.odd_stops == [0]  # read as Thrift C++ does, noted
