"""Wide footers: one column's metadata through the FlatBuffers footer (tail first) versus
`pyarrow.parquet.read_metadata`, for 1k, 10k and 100k columns, measured in one run.

    python bench/wide_footer.py [--columns 1000,10000,100000] [--repeat 5]

For each width: a one-row table of int32 columns is written by pyarrow, its FlatBuffers
FileMetaData (generators.flatbuf) is added in the spec-example profile, and then
- flatbuffers: read the file's last 64 bytes, locate the trailer in reverse, check both CRCs over
  the flatbuffer, and read column N/2's data_page_offset through the generated accessors;
- thrift: pyarrow.parquet.read_metadata on the same file, then the same column's offset.
Prints the median times, their ratio, and both footers' sizes.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from parquet_conformance.generators.parquet.flatbuf import parquet_generated as fbs
from parquet_conformance.generators.parquet.mutations import Context
from parquet_conformance.generators.parquet.mutations.flatbuffer import AddFlatbufferFooter
from parquet_conformance.generators.parquet.profiles import locate, locate_at


def wide_file(columns: int) -> tuple[bytes, int]:
    """The file with both footers, and the size of its Thrift FileMetaData alone."""
    table = pa.table({f"c{i}": pa.array([i], pa.int32()) for i in range(columns)})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="none", write_statistics=False, store_schema=False)
    plain = sink.getvalue()
    thrift_size = int.from_bytes(plain[-8:-4], "little")
    return AddFlatbufferFooter(profile="spec-example").apply(plain, Context(random.Random(0))), thrift_size


def via_flatbuffers(path: Path, column: int) -> int:
    with path.open("rb") as fh:
        size = fh.seek(0, 2)

        def read(offset: int, n: int) -> bytes:
            fh.seek(offset)
            return fh.read(n)

        found = locate_at(read, size)  # reads the trailer and the flatbuffer, checks both CRCs
    meta = fbs.FileMetaData.GetRootAs(found.flatbuffer, 0)
    return meta.RowGroups(0).Columns(column).Metadata().DataPageOffset()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'columns':>8} {'flatbuffers':>12} {'read_metadata':>14} {'ratio':>7} {'fb footer':>11} "
          f"{'thrift footer':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in args.columns.split(",")):
            path = Path(tmp) / f"wide-{n}.parquet"
            data, thrift_size = wide_file(n)
            path.write_bytes(data)
            col = n // 2
            fb_times, th_times = [], []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                a = via_flatbuffers(path, col)
                t1 = time.perf_counter()
                md = pq.read_metadata(path)
                b = md.row_group(0).column(col).data_page_offset
                t2 = time.perf_counter()
                assert a == b, (a, b)
                fb_times.append(t1 - t0)
                th_times.append(t2 - t1)
            fb, th = statistics.median(fb_times), statistics.median(th_times)
            found = locate(path.read_bytes())
            print(f"{n:>8} {fb * 1e3:>10.2f}ms {th * 1e3:>12.2f}ms {th / fb:>6.1f}x "
                  f"{len(found.flatbuffer):>10}B {thrift_size:>13}B")


if __name__ == "__main__":
    main()
