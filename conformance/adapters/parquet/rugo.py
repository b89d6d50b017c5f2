"""rugo: Opteryx's Parquet reader, its own C++ decoder (footer, pages, codecs) into draken vectors, through
`rugo.parquet.read_parquet(path, threads=1)`: morsels of columns, each vector's values by `to_pylist()`.

Representation limits (the library's values, taken as they are): a struct is flattened into one column per leaf,
named by its dotted path (`rec.b.c`), and a list of structs into one list per leaf; column names come back as
bytes and are decoded as UTF-8. Timestamps come back as UTC-aware datetimes (so nanoseconds are cut to
microseconds); the canonical form keeps the instant. `to_arrow()` is not used: it labels nanosecond timestamps as
microseconds.
"""

from __future__ import annotations

import inspect
from importlib import metadata
from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.generators.canonical import canonical_rows


class Rugo(PythonAdapter):
    name = "rugo"
    implementation = "rugo (Opteryx, C++)"
    module = "rugo.parquet"
    package = "rugo"
    # Its C++ throws std::runtime_error, which Cython raises as RuntimeError with its message, and a type it cannot
    # materialise is its NotImplementedError; a C++ standard library exception arrives as a RuntimeError too
    # (std::length_error) or as IndexError (std::out_of_range): those are not refusals.
    refusals = Refusals(messages=(("builtins.RuntimeError", ""), ("builtins.NotImplementedError", r"^rugo ")),
                        unhandled=(("builtins.RuntimeError", r"^(vector::|basic_string|cannot create std::|std::|"
                                                             r"map::at|unordered_map::at|bitset::|deque::)"),))

    def requirements(self, version: str) -> list[str]:
        return [f"{self.package}=={version}", "pyarrow"]  # pyarrow: the harness's canonical form imports it

    def version(self) -> str:
        return metadata.version("rugo")

    def read(self, path: str) -> Any:
        names: list[bytes] = []
        values: dict[bytes, list[Any]] = {}
        parquet = self.load()
        # `threads` (0.5): one; releases before it read on the calling thread
        threads = {"threads": 1} if "threads" in inspect.signature(parquet.read_parquet).parameters else {}
        with parquet.read_parquet(path, **threads) as reader:
            for morsel in reader:
                for name in morsel.column_names:
                    if name not in values:
                        names.append(name)
                        values[name] = []
                    vector = morsel.column(name)
                    values[name] += [] if vector is None else vector.to_pylist()
        return names, values

    def canonical(self, result: Any) -> dict[str, Any]:
        names, values = result
        lengths = {len(v) for v in values.values()}
        if len(lengths) > 1:
            raise ValueError(f"columns of {sorted(lengths)} values")  # morsels that do not line up
        return canonical_rows([n.decode() for n in names], zip(*(values[n] for n in names), strict=True))


ADAPTER = Rugo()
