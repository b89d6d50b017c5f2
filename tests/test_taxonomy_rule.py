"""The error taxonomy's rule (conformance/adapters/taxonomy.py) on real exceptions of real libraries: declared classes
before the runtime's safety nets, carve-outs, cause chains, names that differ across releases, and the declarations
of the adapters whose unhandled errors no corpus file triggers (tests/test_taxonomy.py drives every adapter on files).
"""

from __future__ import annotations

import struct

import pytest

from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.adapters.taxonomy import GENERIC, Refusals, classify
from parquet_conformance.conformance.harness.judge import classify as judge
from parquet_conformance.conformance.harness.model import Error, Unhandled, Verdict
from parquet_conformance.corpus.model import Expectation


def raised(call: object) -> BaseException:
    try:
        call()  # type: ignore[operator]
    except BaseException as e:
        return e
    raise AssertionError("nothing raised")


def test_an_unhandled_error_fails_every_expectation() -> None:
    for expected in Expectation:
        assert judge(expected, Unhandled(Error("builtins.TypeError", "x")), set()) == Verdict.UNHANDLED


def test_generic_rule_refuses_with_any_exception_but_the_safety_nets() -> None:
    assert classify(GENERIC, ValueError("bad magic")) == "rejected"
    assert classify(GENERIC, OSError(22, "Invalid argument")) == "rejected"
    for error in (TypeError("'NoneType' object is not iterable"), KeyError("x"), IndexError("list index"),
                  AttributeError("x"), AssertionError(), ZeroDivisionError(), raised(lambda: struct.unpack("<i", b""))):
        assert classify(GENERIC, error) == "unhandled-error", error
    assert classify(GENERIC, MemoryError()) == "oom"
    assert classify(GENERIC, RecursionError()) == "crash"


def test_declared_classes_come_before_the_safety_nets() -> None:
    """pyarrow's ArrowKeyError and ArrowTypeError are a KeyError and a TypeError, and refusals."""
    import pyarrow as pa

    pyarrow = adapters.get("pyarrow").refusals
    assert classify(pyarrow, raised(lambda: pa.array([1]).cast(pa.struct([])))) == "rejected"  # ArrowNotImplemented
    for cls in (pa.lib.ArrowKeyError, pa.lib.ArrowTypeError, pa.lib.ArrowIndexError):
        error = cls("x")
        assert isinstance(error, (KeyError, TypeError, IndexError))
        assert classify(pyarrow, error) == "rejected"
    assert classify(pyarrow, TypeError("'NoneType' object is not iterable")) == "unhandled-error"
    assert classify(pyarrow, pa.lib.ArrowMemoryError("x")) == "oom"


def test_a_refusal_that_wraps_a_safety_net_is_unhandled() -> None:
    def wrapped() -> None:
        try:
            [][1]
        except IndexError as e:
            raise OSError("could not read page") from e

    def handled() -> None:
        try:
            [][1]
        except IndexError:
            raise OSError("could not read page") from None  # the library handled it: its own refusal

    pyarrow = adapters.get("pyarrow").refusals
    assert classify(pyarrow, raised(wrapped)) == "unhandled-error"
    assert classify(pyarrow, raised(handled)) == "rejected"


def test_names_resolve_among_loaded_modules_whatever_the_release_calls_them() -> None:
    """duckdb.Error is `_duckdb.Error` in 2.x and `duckdb.duckdb.Error` in 1.x; a name that no module loaded defines
    matches nothing (and imports nothing)."""
    import duckdb

    declared = adapters.get("duckdb").refusals
    error = raised(lambda: duckdb.connect().execute("SELECT * FROM read_parquet('/nonexistent.parquet')"))
    assert f"{type(error).__module__}.{type(error).__qualname__}" not in declared.classes
    assert classify(declared, error) == "rejected"
    assert classify(Refusals(classes=("no_such_module.Error",)), ValueError()) == "unhandled-error"


def test_carve_outs_win_over_a_refusal_class() -> None:
    import duckdb

    declared = adapters.get("duckdb").refusals
    assert classify(declared, duckdb.InternalException("INTERNAL Error: x")) == "unhandled-error"
    assert classify(declared, duckdb.Error("vector::_M_range_check: __n (which is 9) >= this->size()")) \
        == "unhandled-error"
    assert classify(declared, duckdb.Error("TProtocolException: Invalid data")) == "rejected"
    assert classify(declared, duckdb.OutOfMemoryException("Out of Memory Error: x")) == "oom"


# Adapters whose libraries run in other environments or raise plain errors: their declarations, on the messages the
# libraries raise (seen on the corpus: docs/adapters.md#error-taxonomy), with exceptions of the declared classes made
# here where the library is not importable beside the harness.
PLAIN = [
    ("datafusion", Exception("DataFusion error: Parquet error: Parquet error: Invalid Parquet file. Corrupt footer"),
     "rejected"),
    ("datafusion", Exception("DataFusion error: Internal error: Unexpected empty record batch."), "unhandled-error"),
    ("clickhouse", RuntimeError("Code: 36. DB::Exception: Unexpected end of page data: (INCORRECT_DATA)"), "rejected"),
    ("clickhouse", RuntimeError("Code: 49. DB::Exception: Unexpected return type (LOGICAL_ERROR)"), "unhandled-error"),
    ("clickhouse", RuntimeError("Code: 1001. DB::Exception: std::out_of_range: vector (STD_EXCEPTION)"),
     "unhandled-error"),
    ("clickhouse", RuntimeError("Code: 241. DB::Exception: Memory limit (total) exceeded (MEMORY_LIMIT_EXCEEDED)"),
     "oom"),
    ("velox", RuntimeError("Exception: VeloxRuntimeError\nError Source: RUNTIME\nReason: No magic bytes found\n"
                           "File: /project/velox/dwio/parquet/reader/ParquetReader.cpp"), "rejected"),
    ("velox", RuntimeError("Exception: VeloxRuntimeError\nError Source: RUNTIME\nReason: (39 vs. 38) Precision of "
                           "decimal type must not exceed 38\nFile: /project/./velox/type/Type.h"), "unhandled-error"),
    ("velox", RuntimeError("TProtocolException: Invalid data"), "rejected"),
    ("fastparquet", NotImplementedError("Encoding 11"), "rejected"),
    ("fastparquet", NotImplementedError(), "unhandled-error"),
    ("fastparquet", TypeError("'NoneType' object is not iterable"), "unhandled-error"),
    ("fastparquet", OSError(22, "Invalid argument"), "unhandled-error"),
]


@pytest.mark.parametrize(("name", "error", "outcome"), PLAIN, ids=[f"{n}-{o}" for n, _, o in PLAIN])
def test_declarations_on_plain_errors(name: str, error: BaseException, outcome: str) -> None:
    assert classify(adapters.get(name).refusals, error) == outcome


def test_a_panic_is_never_a_refusal() -> None:
    """pyo3's PanicException is a BaseException named pyo3_runtime.PanicException: no declared class covers it, and
    daft's carve-out catches a panic its runtime wrapped in a DaftCoreException."""
    PanicException = type("PanicException", (BaseException,), {"__module__": "pyo3_runtime"})
    for name in ("polars", "datafusion", "daft"):
        assert classify(adapters.get(name).refusals, PanicException("index out of bounds")) == "unhandled-error"
    daft = adapters.get("daft-parquet2").refusals
    DaftCoreException = type("DaftCoreException", (ValueError,), {"__module__": "daft.exceptions"})
    assert classify(daft, DaftCoreException('DaftError::External task 4 panicked with message "mid > len"')) \
        == "unhandled-error"
    assert classify(daft, DaftCoreException("DaftError::External File out of specification")) == "rejected"


def test_a_dependencys_validation_error_is_a_refusal_only_as_declared() -> None:
    """Rule 4 (docs/adapters.md#dependency-validation): a dependency's own check, declared by class and message, is a
    refusal even where its class is a safety net; the same class with another message stays unhandled."""
    declared = Refusals(messages=(("builtins.TypeError", r"^Stringified UUID is invalid$"),))
    assert classify(declared, TypeError("Stringified UUID is invalid")) == "rejected"
    assert classify(declared, TypeError("'NoneType' object is not subscriptable")) == "unhandled-error"


def test_an_assertion_is_never_a_refusal_even_declared() -> None:
    """Rule 5 (docs/adapters.md#assertions): parquet-pages' `assert` on the magic, and any declaration that would
    cover an AssertionError (a class above it, its very name), anywhere in the chain."""
    def wrapped() -> None:
        try:
            raise AssertionError("magic")
        except AssertionError as e:
            raise ValueError("not a parquet file") from e

    for declared in (Refusals(classes=("builtins.Exception",)), Refusals(classes=("builtins.AssertionError",)),
                     adapters.get("parquet-pages").refusals):
        assert classify(declared, AssertionError()) == "unhandled-error", declared
    assert classify(Refusals(classes=("builtins.ValueError",)), raised(wrapped)) == "unhandled-error"
    assert classify(Refusals(classes=("builtins.ValueError",)), ValueError("bad magic")) == "rejected"


NODE_PROBE = """
import assert from 'node:assert'
import { outcomeOf } from '%s'
const declared = [['TypeError', /^Stringified UUID is invalid$/], ['AssertionError', /./], ['Error', /./]]
const thrown = (f) => { try { f() } catch (e) { return e } }
const cases = [
  TypeError('Stringified UUID is invalid'),
  TypeError("Cannot read properties of null (reading 'x')"),
  thrown(() => assert.strictEqual(1, 2)),
  new Error('not a parquet file', { cause: thrown(() => assert.ok(false)) }),
  new Error('not a parquet file'),
]
for (const e of cases) console.log(outcomeOf(e, declared))
"""


def test_the_javascript_rule_takes_rules_four_and_five_alike(tmp_path: object) -> None:
    """js/shared.mjs: the same two rules as the Python classifier above, on Node's own errors."""
    import shutil
    import subprocess
    from pathlib import Path

    from parquet_conformance.conformance.adapters import parquet

    if shutil.which("node") is None:
        pytest.skip("no node")
    probe = Path(str(tmp_path)) / "probe.mjs"
    probe.write_text(NODE_PROBE % (Path(parquet.__file__).parent / "js" / "shared.mjs").as_uri())
    proc = subprocess.run(["node", str(probe)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["rejected", "unhandled-error", "unhandled-error", "unhandled-error", "rejected"]
