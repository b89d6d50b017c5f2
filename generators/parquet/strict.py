"""The strict decoder: a file's footer read as a Thrift reader reads it (footer.py read_footer), then every rule of
the spec as findings, the footer's (footer.py findings) and the page level's (layout.py page_level_findings).

`parse_file` is deliberately strict: any finding, and anything Thrift reads only by skipping it, fails it. It is the
judge that every corrupt or nonconforming case of the corpus really is one.
"""

from __future__ import annotations

from functools import lru_cache

from parquet_conformance.generators.parquet.footer import (
    Buffer,
    FooterError,
    ParquetFooter,
    Problem,
    findings,
    read_footer,
)
from parquet_conformance.generators.parquet.layout import page_level_findings


def check_file(buf: Buffer) -> tuple[ParquetFooter, list[Problem]]:
    """read_footer's reading and notes, then the spec's rules as findings, page headers included.
    Raises FooterError only where read_footer does."""
    if isinstance(buf, bytes) and len(buf) <= MEMO_BYTES:
        footer, problems = _checked(buf)
        return footer, list(problems)
    return _check(buf)


MEMO_BYTES = 4 << 20  # what the memo may hold: 16 files of at most 4 MiB (the large cases pass by)


@lru_cache(maxsize=16)
def _checked(buf: bytes) -> tuple[ParquetFooter, tuple[Problem, ...]]:
    """The same bytes checked again (parse_file, inspect and the reference reader of one file; a base file edited
    many ways) are checked once: a decoded footer is never changed after read_footer (thrift.py decodes it, edits
    work on the bytes)."""
    footer, problems = _check(buf)
    return footer, tuple(problems)


def _check(buf: Buffer) -> tuple[ParquetFooter, list[Problem]]:
    footer, found = read_footer(buf)
    return footer, found + findings(footer) + page_level_findings(footer)


def parse_file(buf: Buffer) -> ParquetFooter:
    """The strict decoder: the footer if the file has no finding and nothing Thrift reads only by skipping or
    folding it (a plaintext footer's signature is fine); else FooterError naming the first problem."""
    footer, problems = check_file(buf)
    if bad := strict_objections(problems):
        raise FooterError(str(bad[0]))
    return footer


def strict_objections(problems: list[Problem]) -> list[Problem]:
    """What the strict decoder refuses a file for: every problem but a plaintext footer's signature."""
    return [p for p in problems if p.rule != "signature"]
