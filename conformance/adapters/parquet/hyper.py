"""Tableau's Hyper engine, its own C++ Parquet reader, through tableauhyperapi: a local `hyperd` serves
`SELECT * FROM external('<path>', format => 'parquet')`.

One hyperd per worker, started in `prepare` (0.1 s) without a log file and with one query thread; it exits with the
worker (its callback connection). A hyperd that died reading a file is that file's crash: the worker exits too, and
the next cell gets a new one. Rows come back in file order through `ORDER BY ctid` (a SQL result has no order, and
Hyper's does interleave row groups); a release whose external() scan has no ctid (0.0.14109) is unavailable.

Representation limits (Hyper's types): timestamps are microseconds (nanoseconds cut), INT96 is read as TIMESTAMP_TZ;
NUMERIC values come back as Decimals without trailing zeros and are given the column's own scale again. A list
column comes back as raw bytes typed UNSUPPORTED (Hyper's array encoding): there is no value to compare, so such a
result is a harness error of ours, not a verdict; Hyper refuses structs and lists of lists itself.
"""

from __future__ import annotations

import decimal
import os
import re
import sys
import tempfile
from importlib import metadata
from typing import Any

from parquet_conformance.conformance.adapters import AdapterUnavailable, PythonAdapter
from parquet_conformance.conformance.adapters.representations import Documented
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.generators.canonical import Canonical, canonical_value, date_days
from parquet_conformance.generators.representations import Representation

NUMERIC = re.compile(r"NUMERIC\((\d+), (\d+)\)")


class Hyper(PythonAdapter):
    name = "hyper"
    implementation = "Hyper (tableauhyperapi)"
    engine = "Hyper's C++ Parquet reader (hyperd)"
    module = "tableauhyperapi"
    package = "tableauhyperapi"
    # HyperException: SQL errors with a hint ("The file is probably corrupt.", "This feature is not supported."), but
    # an internal error (SQLSTATE XX000, Hyper's word for its own bug).
    refusals = Refusals(classes=("tableauhyperapi.HyperException",),
                        unhandled=(("tableauhyperapi.HyperException", r"(?i)internal error|XX000"),))
    representations = (Documented(
        Representation.TEMPORAL_MICROSECONDS,
        "timestamp [without time zone] | 8 bytes | both date and time (no time zone) | 4713 BC - 294276 AD | "
        "1 microsecond (Resolution; likewise timestamp with time zone and time)",
        "https://tableau.github.io/hyper-db/docs/sql/datatype/datetime"),)
    _process: Any = None
    _connection: Any = None

    def requirements(self, version: str) -> list[str]:
        return [f"{self.package}=={version}", "pyarrow"]  # pyarrow: the harness's canonical form imports it

    def version(self) -> str:
        return metadata.version("tableauhyperapi")  # old releases have no __version__

    def prepare(self) -> None:
        hyper = self.load()
        parameters = {"log_config": "", "log_dir": tempfile.gettempdir(), "hard_concurrent_query_thread_limit": "1"}
        try:
            self._process = hyper.HyperProcess(hyper.Telemetry.DO_NOT_SEND_USAGE_DATA_TO_TABLEAU,
                                               parameters=parameters)
            self._connection = hyper.Connection(self._process.endpoint)
        except hyper.HyperException as e:  # releases before external() (2021) take none of these parameters
            raise AdapterUnavailable(f"tableauhyperapi {self.version()}: hyperd does not start with "
                                     f"{sorted(parameters)}: {_first_line(e)}") from None
        with tempfile.TemporaryDirectory() as folder:  # a release without ctid could not give rows in file order
            import pyarrow as pa
            import pyarrow.parquet as pq

            probe = os.path.join(folder, "probe.parquet")
            pq.write_table(pa.table({"x": [1]}), probe)
            try:
                self._connection.execute_list_query(f"SELECT ctid FROM {_external(hyper, probe)}")
            except hyper.HyperException as e:
                self._stop()
                raise AdapterUnavailable(f"tableauhyperapi {self.version()}: no ctid in a scan of external(), so no "
                                         f"file order for its rows: {_first_line(e)}") from None

    def _stop(self) -> None:
        for part in (self._connection, self._process):
            try:
                if part is not None:
                    part.close()
            except Exception:  # a hyperd that is gone already
                pass
        self._connection = self._process = None

    def _alive(self) -> bool:
        from tableauhyperapi.impl.dll import lib

        if self._process is None or not self._process.is_open:
            return False
        try:
            pid = lib.hyper_instance_get_pid(self._process._cdata)
            os.kill(pid, 0)
            with open(f"/proc/{pid}/stat") as fh:
                return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return False

    def read(self, path: str) -> Any:
        hyper = self.load()
        # Hyper scans row groups in morsels, interleaved: ctid, the row's position in the file, puts them back in order.
        sql = f"SELECT * FROM {_external(hyper, path)} ORDER BY ctid"
        try:
            with self._connection.execute_query(sql) as result:
                columns = [(c.name.unescaped, str(c.type)) for c in result.schema.columns]
                return columns, [list(row) for row in result]
        except hyper.HyperException:
            if not self._alive():  # hyperd died on this file: the library's crash, not a refusal
                print(f"hyperd died reading {path}", file=sys.stderr, flush=True)
                os._exit(70)
            raise

    def canonical(self, result: Any) -> dict[str, Any]:
        columns, rows = result
        kinds = [kind for _, kind in columns]
        if unsupported := [name for name, kind in columns if kind == "UNSUPPORTED"]:
            raise TypeError(f"column {unsupported[0]!r} comes back as UNSUPPORTED (Hyper's raw array bytes)")
        return Canonical(columns=[name for name, _ in columns],
                         rows=[[_token(v, kind) for v, kind in zip(row, kinds, strict=True)] for row in rows])


def _token(v: Any, kind: str) -> Any:
    if isinstance(v, decimal.Decimal) and (m := NUMERIC.fullmatch(kind)):
        return canonical_value(v.quantize(decimal.Decimal(1).scaleb(-int(m.group(2)))))
    name = type(v).__name__
    if name == "Date":
        return {"date": _civil(v.year, v.month, v.day)}
    if name == "Timestamp":  # UTC where the column is TIMESTAMP_TZ; any year, unlike datetime
        days = date_days(_civil(v.year, v.month, v.day))
        micros = ((days * 24 + v.hour) * 60 + v.minute) * 60 * 1_000_000 + v.second * 1_000_000 + v.microsecond
        return {"ts_ns": str(micros * 1000)}
    if name == "Interval":
        raise TypeError("no canonical form for a Hyper Interval")
    return canonical_value(v)


def _external(hyper: Any, path: str) -> str:
    return f"external({hyper.escape_string_literal(path)}, format => 'parquet')"


def _first_line(e: Exception) -> str:
    return (getattr(e, "main_message", None) or str(e)).strip().splitlines()[0]


def _civil(year: int, month: int, day: int) -> str:
    return f"{'-' if year < 0 else ''}{abs(year):04d}-{month:02d}-{day:02d}"


ADAPTER = Hyper()
