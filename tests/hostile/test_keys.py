"""The keys a case sends with its operation (corpus/model.py Case.keys, the manifest's `keys`, the request's `keys`:
docs/adapter-protocol.md#keys) cross one checked boundary: a name, and base64 of 16, 24 or 32 bytes. The record,
the manifest's schema and the protocol's schema agree on every text; a manifest with a bad key is refused by `run`
in one line, before any worker starts."""

from __future__ import annotations

import base64
import binascii
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parquet_conformance.conformance.harness.derived import protocol_schema
from parquet_conformance.corpus import dist
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.model import NAME_RE, Case, manifest_schema
from parquet_conformance.corpus.parquet.catalog.common import GOLDEN
from parquet_conformance.kernel import documents
from tests import hostile
from tests.hostile import one_line

KEYS_SCHEMA = manifest_schema()["$defs"]["CaseEntry"]["properties"]["keys"]
REQUEST_KEYS_SCHEMA = protocol_schema()["$defs"]["ReadRequest"]["properties"]["keys"]


def good(name: str, value: str) -> bool:
    try:
        size = len(base64.b64decode(value, validate=True))
    except (binascii.Error, ValueError):
        return False
    return bool(NAME_RE.fullmatch(name)) and size in (16, 24, 32) and base64.b64encode(base64.b64decode(value)) \
        == value.encode()


def case(keys: dict[str, str]) -> Case:
    return Case(id="features/x/y", title="t", kind="golden", base="flat", mutations=(), expect={"legacy": "read"},
                citations=(GOLDEN,), op="decrypt", keys=keys)


keys_text = st.one_of(st.text(max_size=50), st.binary(min_size=0, max_size=40).map(
    lambda b: base64.b64encode(b).decode()))


@given(name=st.one_of(st.just("footer-key"), st.text(max_size=12)), value=keys_text)
def test_the_record_and_both_schemas_agree_on_every_key(name: str, value: str) -> None:
    want = good(name, value)
    try:
        case({name: value})
        record = True
    except ValueError:
        record = False
    assert record == want
    for schema in (KEYS_SCHEMA, REQUEST_KEYS_SCHEMA):
        assert (documents.problem_of({name: value}, schema) is None) == want, (name, value)


def test_keys_are_for_an_operation_that_takes_them() -> None:
    with pytest.raises(ValueError, match="keys for a plain read"):
        Case(id="features/x/y", title="t", kind="golden", base="flat", mutations=(), expect={"legacy": "read"},
             citations=(GOLDEN,), keys={"footer-key": base64.b64encode(bytes(16)).decode()})


@pytest.mark.integration
@pytest.mark.parametrize("keys", [{"footer-key": "not base64!"}, {"footer-key": base64.b64encode(bytes(17)).decode()},
                                  {"../x": base64.b64encode(bytes(16)).decode()},
                                  {f"k{i}": base64.b64encode(bytes(16)).decode() for i in range(17)}],
                         ids=["not-base64", "17-bytes", "bad-name", "17-keys"])
def test_a_manifest_with_a_bad_key_runs_nothing(keys: dict[str, str], tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    generate(root, only="features/format-modular-encryption/uniform")
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["cases"][0]["keys"] = keys
    (root / "manifest.json").write_text(json.dumps(manifest))
    dist.write_manifest_digest(root)
    err = one_line(hostile.cli("run", "--corpus", str(root), "--out", str(tmp_path / "out"), "--master", "none",
                               "--adapter", "pyarrow", timeout=300))
    assert "manifest.json: cases[0].keys" in err, err
    assert not (tmp_path / "out" / "results").exists()
    shutil.rmtree(root)


@pytest.mark.parametrize("arg", ["footer", "footer=not-base64", f"../x={base64.b64encode(bytes(16)).decode()}",
                                 f"footer={base64.b64encode(bytes(15)).decode()}"])
def test_read_refuses_a_bad_key_in_one_line(arg: str, tmp_path: Path) -> None:
    (tmp_path / "f.parquet").write_bytes(b"PAR1")
    err = one_line(hostile.cli("read", str(tmp_path / "f.parquet"), "--adapter", "pyarrow", "--op", "decrypt",
                               "--key", arg))
    assert "--key" in err and "NAME=BASE64" in err, err


FIXTURES = Path(__file__).resolve().parents[2] / "generators" / "parquet" / "fixtures"


def test_our_kms_failing_is_ours_never_the_librarys() -> None:
    """pyarrow calls our KMS inside its read: a master key the request lacks is a harness error, not pyarrow's
    unhandled error."""
    from parquet_conformance.conformance.adapters import get
    from parquet_conformance.conformance.harness.worker import read_one
    from parquet_conformance.generators.parquet.encryption import request_keys

    keys = {k: v for k, v in request_keys().items() if k != "kms.column-key"}
    got = read_one(get("pyarrow"), str(FIXTURES / "pyarrow-encrypted-column-key-i32-s.parquet"), "decrypt", keys=keys)
    assert got["outcome"] == "harness-error" and "master key 'column-key'" in got["error"]["message"], got


@pytest.mark.parametrize("key", [b"parquet-'onform3", b"parquet-\\onform3", b"parquet conform3",
                                 b"parquet-\xffonform3"],
                         ids=["quote", "backslash", "space", "not-ascii"])
def test_a_key_duckdb_cannot_be_given_as_text_is_unavailable(key: bytes) -> None:
    """A quote or a backslash would end or escape the SQL literal, a space or a byte beyond ASCII would not be the
    key as text: none is sent, the cell is a skip."""
    from parquet_conformance.conformance.adapters import get
    from parquet_conformance.conformance.harness.worker import read_one

    assert len(key) == 16
    got = read_one(get("duckdb"), str(FIXTURES / "polars-encrypted-i32-s.parquet"), "decrypt",
                   keys={"footer": base64.b64encode(key).decode()})
    assert got["outcome"] == "unavailable", got


def test_keys_with_an_operation_that_takes_none_are_ours() -> None:
    from parquet_conformance.conformance.adapters import get
    from parquet_conformance.conformance.harness.worker import read_one

    keys = {"footer": base64.b64encode(b"parquet-conform3").decode()}
    for adapter in ("pyarrow", "duckdb"):
        got = read_one(get(adapter), str(FIXTURES / "polars-i32-s.parquet"), "statistics", keys=keys)
        assert got["outcome"] == "harness-error" and "takes none" in got["error"]["message"], (adapter, got)


@pytest.mark.integration
def test_the_java_worker_says_so_too() -> None:
    """parquet-java's worker: keys with a command that takes none, and a master key its KMS lacks, are ours."""
    from parquet_conformance.conformance.harness.model import HarnessError
    from parquet_conformance.conformance.harness.specs import AdapterSpec
    from parquet_conformance.generators.parquet.encryption import request_keys

    worker = AdapterSpec.parse("parquet-java").worker()
    try:
        keys = {"footer": base64.b64encode(b"parquet-conform3").decode()}
        plain = worker.read(str(FIXTURES / "polars-i32-s.parquet"), "x", "read", keys=keys).outcome
        assert isinstance(plain, HarnessError) and "takes none" in plain.error.message, plain
        lacking = {k: v for k, v in request_keys().items() if k == "kms.footer-key"}
        kms = worker.read(str(FIXTURES / "pyarrow-encrypted-column-key-i32-s.parquet"), "x", "decrypt",
                          keys=lacking).outcome
        assert isinstance(kms, HarnessError) and "no master key column-key" in kms.error.message, kms
    finally:
        worker.close()
