"""The YTsaurus C++ Skiff codec through its Python binding (`pip install ytsaurus-yson`: yt_yson_bindings),
called as a user job calls it: `SkiffSchema` per table, `load_skiff` over the input stream, `create_record` and
`dump_skiff` into one stream per output table. The binding can abort the process on some inputs: that happens
in this worker, and the harness records it as a `crash` cell. Reading the case document, turning its tokens into
values and finding a record's table are ours (`ours`): they never decide an outcome of the binding.
"""

from __future__ import annotations

import importlib
import io
from importlib import metadata
from typing import Any

from parquet_conformance.conformance.adapters import AdapterError, AdapterUnavailable, ours
from parquet_conformance.conformance.adapters.skiff import Decoded, Encoded, SkiffAdapter, load_case
from parquet_conformance.conformance.adapters.taxonomy import Refusals

# The control columns' names are arguments of the binding; these are the seed's.
RANGE_INDEX, ROW_INDEX = "$range_index", "$row_index"


class YtsaurusSkiff(SkiffAdapter):
    name = "ytsaurus-skiff"
    cell_cost_s = 0.1  # a crash costs a new worker
    implementation = "YTsaurus Skiff codec (C++, Python binding yt_yson_bindings)"
    module = "yt_yson_bindings"
    package = "ytsaurus-yson"
    # YtError and its subclasses (YsonError, SkiffError); when a row is written, the binding's conversion of a value
    # of the wrong type (CPython's TypeError: "'bytes' object cannot be interpreted as an integer") and its LookupError
    # for a column the schema lacks, which names the column bare (a KeyError's message is the key quoted): a Python
    # API refuses a wrong argument so.
    refusals = Refusals(classes=("yt.common.YtError",), messages=(
        ("builtins.TypeError", r"cannot be interpreted as an integer|argument must be a string or a real number|"
                               r"an integer is required|must be real number"),
        ("builtins.LookupError", r"^[^'\"]")))

    def load(self) -> Any:
        try:
            return importlib.import_module(self.module)
        except ImportError as e:
            raise AdapterUnavailable(f"ytsaurus-yson is not installed ({e}); "
                                     "pip install 'parquet-conformance[skiff]'") from None

    def prepare(self) -> None:
        self.lib = self.load()
        from yt.yson import yson_types  # the binding's value types, for `token`

        self.types = yson_types

    def version(self) -> str:
        return metadata.version("ytsaurus-yson")

    def _schemas(self, fmt: dict[str, Any]) -> list[Any]:
        with ours("reading the case's format"):
            registry = fmt.get("skiff_schema_registry", {})
            if "table_skiff_schemas" not in fmt:  # the binding takes the tables' schemas, not a format: nothing to ask
                raise AdapterError("the format has no table_skiff_schemas: the binding cannot be given this case")
            tables = list(fmt["table_skiff_schemas"])
        return [self.lib.SkiffSchema([table], registry, RANGE_INDEX, ROW_INDEX) for table in tables]

    def decode(self, path: str) -> Decoded:
        with ours("reading the case document"):
            doc = load_case(path)
            stream = io.BytesIO(bytes.fromhex(doc["stream"]))
        schemas = self._schemas(doc["format"])
        rows = []
        # encoding=None: strings stay bytes (with the default UTF-8, a non-UTF-8 string32 raises ImportError).
        for record in self.lib.load_skiff(stream, schemas, RANGE_INDEX, ROW_INDEX, raw=False, encoding=None):
            schema = record.get_schema()  # the only way to the table index: the very SkiffSchema passed in
            with ours("finding the record's table"):
                index = next(i for i, s in enumerate(schemas) if s is schema)
            rows.append((index, list(record.items())))
        return Decoded(rows)

    def encode(self, path: str) -> Encoded:
        with ours("reading the case document and its values"):
            doc = load_case(path)
            rows = [(index, [(name, self.value(tok)) for name, tok in columns.items()])
                    for index, columns in doc["rows"]]
        schemas = self._schemas(doc["format"])
        records: list[Any] = []
        current = 0
        for index, values in rows:
            if index != current:
                records.append(self.lib.SkiffTableSwitch(index))
                current = index
            # A row for a table the format lacks is written as a user's bug would be: the switch says where.
            record = schemas[index if index < len(schemas) else 0].create_record()
            for name, value in values:
                record[name] = value
            records.append(record)
        streams = [io.BytesIO() for _ in schemas]
        self.lib.dump_skiff(records, streams, schemas)
        return Encoded(doc["format"], [s.getvalue() for s in streams])

    def value(self, tok: Any) -> Any:
        """A token as the Python value a user hands the binding: bytes for strings, YsonUint64 for `42u`."""
        if isinstance(tok, list):
            return [self.value(x) for x in tok]
        if not isinstance(tok, dict):
            return tok
        ((tag, x),) = tok.items()
        converters = {"int": int, "uint": self.types.YsonUint64, "float": float, "bin": bytes.fromhex,
                      "struct": lambda items: {k: self.value(v) for k, v in items.items()}}
        return converters[tag](x)

    def token(self, value: Any) -> object:
        t = self.types
        if getattr(value, "has_attributes", lambda: False)():
            raise TypeError("YSON attributes have no Skiff token")
        if value is None or isinstance(value, t.YsonEntity):
            return None
        if isinstance(value, bool | t.YsonBoolean):
            return bool(value)
        if isinstance(value, t.YsonUint64):
            return {"uint": str(int(value))}
        if isinstance(value, int):
            return {"int": str(int(value))}
        if isinstance(value, float):
            return {"float": "nan" if value != value else repr(float(value))}
        if isinstance(value, str):
            value = value.encode()
        if isinstance(value, bytes):
            return {"bin": bytes(value).hex()}
        if isinstance(value, list | tuple):
            return [self.token(v) for v in value]
        if isinstance(value, dict):
            return {"struct": {(k.decode() if isinstance(k, bytes) else str(k)): self.token(v)
                               for k, v in value.items()}}
        raise TypeError(f"no Skiff token for {type(value).__name__}")


ADAPTER = YtsaurusSkiff()
