"""Velox's own C++ Parquet reader (Presto C++, Gluten), through pyvelox: a `table_scan` plan run by
Velox's LocalRunner. Pinned to pyvelox 0.2.0 in an environment of its own: its extensions link
pyarrow 19's libarrow_python, which the harness's pyarrow is not.

pyvelox 0.2.0 never registers the Parquet reader factory from Python ("ReaderFactory is not registered
for format parquet"), so the worker calls the library's exported
`facebook::velox::parquet::registerParquetReaderFactory()` through ctypes; without that symbol the adapter
is unavailable. The Hive connector reads timestamps as milliseconds unless told otherwise; it is told
nanoseconds (hive.reader.timestamp-unit=9), so that nothing is truncated. libvelox.so carries its own
Arrow C++, whose objects pyarrow cannot use safely (string values segfault): the conversion copies the raw
buffers into pyarrow arrays.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Mapping
from typing import Any

from parquet_conformance.conformance.adapters import AdapterUnavailable, PythonAdapter
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.generators.canonical import ArrowData, Canonical

REGISTER = "_ZN8facebook5velox7parquet28registerParquetReaderFactoryEv"  # registerParquetReaderFactory()
PYARROW = "19.*"  # the pyarrow whose libarrow_python its wheel links
THRIFT = r"(TProtocolException|TTransportException|don't know what type|Variable-length int over|invalid TType|" \
         r"Invalid varint value|Negative size|Exceeded size limit)"


class Velox(PythonAdapter, Reproducing):
    name = "velox"
    cell_cost_s = 0.03
    implementation = "Velox (pyvelox)"
    engine = "Velox C++ Parquet reader (dwio/parquet)"
    module = "pyvelox"
    package = "pyvelox"
    release = "0.2.0"
    # VeloxException arrives as a RuntimeError naming its source and the file of the check that failed: a user error,
    # a check of the reader's own (velox/dwio), or Thrift's exceptions (alone, or as the reason a Driver gives) are
    # refusals; a runtime check of generic code (velox/type, velox/common/memory, velox/vector, velox/buffer: a
    # DecimalType over 38 digits, a negative StringView size) is not.
    refusals = Refusals(
        messages=(("builtins.RuntimeError", r"Error Source: USER"), ("builtins.RuntimeError", r"File: \S*/velox/dwio/"),
                  ("builtins.RuntimeError", rf"^{THRIFT}"),
                  ("builtins.RuntimeError", rf"Reason: Operator::addInput failed for [^\n]*: {THRIFT}")),
        unhandled=(("builtins.RuntimeError",
                    r"Error Source: RUNTIME[\s\S]*File: \S*/velox/(type|common/memory|vector|buffer)/"),))

    def requirements(self, version: str) -> list[str]:
        return [f"pyvelox=={version}", f"pyarrow=={PYARROW}"]  # the wheel links libarrow_python.so.1900, pins nothing

    def prepare(self) -> None:
        import pyarrow  # noqa: F401  # first: pyvelox's extensions must bind to pyarrow's Arrow, not libvelox's copy

        pyvelox = self.load()
        # RTLD_LOCAL (ctypes' default): libvelox's private Arrow must not interpose pyarrow's symbols.
        lib = ctypes.CDLL(os.path.join(os.path.dirname(pyvelox.__file__), "libvelox.so"))
        try:
            register = getattr(lib, REGISTER)
        except AttributeError:
            raise AdapterUnavailable(f"pyvelox {pyvelox.__version__}: libvelox.so does not export "
                                     "registerParquetReaderFactory") from None
        register.restype = None
        register()
        from pyvelox.runner import register_hive

        register_hive("hive", {"hive.reader.timestamp-unit": "9"})  # ns: nothing truncated

    def read(self, path: str) -> Any:
        from pyvelox.arrow import to_arrow
        from pyvelox.file import File
        from pyvelox.plan_builder import PlanBuilder
        from pyvelox.runner import LocalRunner

        file = File(os.path.abspath(path), "parquet")  # Velox wants absolute paths
        plan = PlanBuilder().table_scan(file.get_schema(), input_files=[file]).get_plan_node()
        runner = LocalRunner(plan)
        return runner, [to_arrow(vector) for vector in runner.execute()]  # valid while the runner lives

    def canonical(self, result: Any) -> Mapping[str, Any]:
        import pyarrow as pa

        table = velox_table(pa, result)
        return Canonical(columns=[], rows=[]) if table is None else ArrowData(table)

    def reproducer(self) -> Reproducer:
        """repro.py runs the same table scan as `read` (the Parquet reader registered as `prepare` does) and copies
        Velox's buffers as `canonical` does, with this module's own functions."""
        return reproducers.python(
            "pyvelox", "import ctypes\nimport os\nimport pyarrow as pa  # first: pyvelox binds to pyarrow's Arrow\n"
            "import pyvelox\nfrom typing import Any", "pyvelox.__version__",
            "from pyvelox.arrow import to_arrow\nfrom pyvelox.file import File\nfrom pyvelox.plan_builder import "
            "PlanBuilder\nfrom pyvelox.runner import LocalRunner, register_hive\n\n"
            "# pyvelox does not register its Parquet reader from Python: its library's own function does\n"
            "lib = ctypes.CDLL(os.path.join(os.path.dirname(pyvelox.__file__), 'libvelox.so'))\n"
            f"register = getattr(lib, {REGISTER!r})\nregister.restype = None\nregister()\n"
            "register_hive('hive', {'hive.reader.timestamp-unit': '9'})  # nanoseconds: nothing truncated\n"
            "file = File(os.path.abspath(path), 'parquet')\n"
            "plan = PlanBuilder().table_scan(file.get_schema(), input_files=[file]).get_plan_node()\n"
            "runner = LocalRunner(plan)\nreturn runner, [to_arrow(vector) for vector in runner.execute()]",
            f"pip install pyvelox=={{version}} 'pyarrow=={PYARROW}'",
            arrow="velox_table(pa, result) if result[1] else pa.table({})",
            data=reproducers.ARROW_DATA + "\n\n\n" + reproducers.copied(functions=(velox_table, _as_binary, _copy)))


def velox_table(pa: Any, result: Any) -> Any:
    """Velox's result as a pyarrow Table (None: no batch): its buffers copied, offsets and lengths checked before any
    value is read (they came from libvelox); text is viewed as bytes for the check, since text that is not UTF-8 is
    Velox's read."""
    _runner, arrays = result
    batches = [_copy(pa, a) for a in arrays]
    if not batches:
        return None
    array = pa.concat_arrays(batches)
    array.view(_as_binary(pa, array.type)).validate(full=True)
    return pa.Table.from_struct_array(array)


def _as_binary(pa: Any, t: Any) -> Any:
    """The type with every string type replaced by the binary type of the same layout."""
    if pa.types.is_string(t):
        return pa.binary()
    if pa.types.is_large_string(t):
        return pa.large_binary()
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_as_binary(pa, f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(_as_binary(pa, t.key_type), t.item_field.with_type(_as_binary(pa, t.item_type)))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        inner = t.value_field.with_type(_as_binary(pa, t.value_type))
        return pa.list_(inner) if pa.types.is_list(t) else pa.large_list(inner)
    return t


def _copy(pa: Any, array: Any) -> Any:
    """The array rebuilt from byte copies of its buffers: only .buffers() is safe on libvelox's objects."""
    t = array.type
    buffers = [None if b is None else pa.py_buffer(b.to_pybytes()) for b in array.buffers()[:t.num_buffers]]
    if pa.types.is_struct(t):
        children = [_copy(pa, array.field(i)) for i in range(t.num_fields)]
    elif pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_map(t):
        children = [_copy(pa, array.values)]
    else:
        children = None
    return pa.Array.from_buffers(t, len(array), buffers, offset=array.offset, children=children)


ADAPTER = Velox()
