"""`parquet-conformance inspect`: what a file's tail, footer and extensions look like."""

from __future__ import annotations

import mmap
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from parquet_conformance.generators.parquet import parx
from parquet_conformance.generators.parquet.extend import describe_extension, framing_text
from parquet_conformance.generators.parquet.footer import FooterError, finding, struct_extensions
from parquet_conformance.generators.parquet.layout import page_structs
from parquet_conformance.generators.parquet.profiles import ProfileError, locate
from parquet_conformance.generators.parquet.strict import check_file, strict_objections
from parquet_conformance.generators.parquet.thrift import Buffer, Struct


def flatbuffers_report(buf: Buffer, thrift_meta: Struct | None) -> dict[str, Any] | None:
    """A FlatBuffers FileMetaData found from the tail: its profile, whether its CRCs and
    verification pass, its length, and whether it says what the Thrift footer says."""
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.generators.parquet.flatbuf.convert import (
        FlatbufferError,
        flatbuffer_comparable,
        thrift_comparable,
    )

    try:
        found = locate(buf)
    except ProfileError as e:
        return {"profile": None, "crc_ok": False, "error": str(e)}
    if found is None:
        return None
    report = {"profile": found.profile, "revision": found.revision, "crc_ok": True, "crc": found.crc,
              "flatbuffer_offset": found.offset, "flatbuffer_length": len(found.flatbuffer)}
    try:
        fb_meta = flatbuffer_comparable(found.flatbuffer, found.revision)
    except FlatbufferError as e:
        return {**report, "verified": False, "error": str(e)}
    agrees = None if thrift_meta is None else fb_meta == thrift_comparable(thrift_meta, found.revision)
    return {**report, "verified": True, "agrees_with_thrift": agrees, "error": None}


def inspect_bytes(buf: Buffer) -> dict[str, Any]:
    """Never raises on bad bytes. Two levels (footer.py): `valid` says whether a Thrift compact reader
    decodes the footer (else `error` says why); `notes` list what that reading passed over (fields of an
    unexpected wire type, non-minimal varints, a plaintext footer's signature) and `findings` the rules of
    the spec the file breaks (enums out of range, required fields missing, row counts that disagree,
    overlapping chunks, wrong page CRCs, page offsets, the page index and bloom filters, extension rules);
    `strict` whether our strict decoder (strict.parse_file) accepts the file: no problem but a signature.
    Extensions are listed whenever the footer decodes, page headers, page index and bloom filter headers
    included. In encrypted footer mode (PARE) only the plaintext FileCryptoMetaData is read. A PARX file is read as
    an aware reader reads it (_inspect_parx), under `parx`."""
    size = len(buf)
    report: dict = {"valid": False, "size": size,
                    "magic": {"head": _magic(buf[:4]), "tail": _magic(buf[-4:]) if size >= 8 else None}}
    if size >= 8 and bytes(buf[-4:]) == parx.MAGIC:
        return _inspect_parx(buf, report)
    try:
        footer, problems = check_file(buf)
    except FooterError as e:
        fb = flatbuffers_report(buf, None)
        if fb and fb["profile"] == "par3" and fb["error"] is None:  # the final form: no Thrift footer
            return {**report, "valid": True, "error": None, "flatbuffers_footer": fb, "extensions": [], "notes": [],
                    "findings": [], "strict": True}
        return {**report, "error": str(e), **({"flatbuffers_footer": fb} if fb else {})}
    pages = page_structs(footer)  # page headers, page index, bloom filter headers
    report.update({
        "footer_offset": footer.footer_offset,
        "footer_length": footer.footer_length,
        "structs": dict(Counter(r.name for r in footer.structs())),
        "extensions": [describe_extension(e) for e in footer.extensions(include_pages=False)]
        + [describe_extension(e) for ref in pages for e in struct_extensions(buf, ref)],
    })
    if fb := flatbuffers_report(buf, footer.metadata):
        report["flatbuffers_footer"] = fb
    problem_lists = {"notes": [p.to_json() for p in problems if p.level == "note"],
                     "findings": [p.to_json() for p in problems if p.level == "finding"],
                     "strict": not strict_objections(problems)}
    if footer.encrypted_footer:  # PARE: the FileMetaData is behind the key; the FileCryptoMetaData was walked
        return {**report, "valid": True, "error": None, **problem_lists, "encrypted_footer": True, "version": None,
                "num_rows": None, "row_groups": 0, "columns": 0, "created_by": None, "page_headers": 0}
    root = footer.root
    created_by = root.value("created_by")
    return {**report, "valid": True, "error": None, **problem_lists,
            "version": root.value("version"), "num_rows": root.value("num_rows"),
            "row_groups": len(footer.row_groups()), "columns": footer.leaf_count(),
            "created_by": created_by.decode("utf-8", "replace") if isinstance(created_by, bytes) else None,
            "page_headers": sum(1 for r in pages if r.name == "PageHeader")}


def _inspect_parx(buf: Buffer, report: dict[str, Any]) -> dict[str, Any]:
    """A PARX file (apache/parquet-format PR #588) as an aware reader sees it: the tail checked (flags, length, CRC:
    parx.locate), then the Thrift footer it frames, inspected as the same file in PAR1 form (the offsets are the
    same: both head magics are 4 bytes). A path_in_schema left out under flag bit 1 is no finding; a head magic
    other than PARX is one. Unsupported flags, a bad length or CRC: not valid, and why."""
    try:
        tail = parx.read_parx_tail(buf)
    except parx.ParxError as e:
        return {**report, "error": f"PARX tail: {e}"}
    info: dict[str, Any] = {"metadata_len": tail.metadata_len, "flags": tail.flag_names(), "crc": f"{tail.crc:#010x}"}
    try:
        par1, _ = parx.unframe(buf, restore_paths=False)
    except parx.ParxError as e:
        return {**report, "error": f"PARX tail: {e}", "parx": {**info, "error": str(e)}}
    inner = inspect_bytes(par1)
    omitted = tail.flags & parx.PATH_IN_SCHEMA_OMITTED
    findings = [f for f in inner.get("findings", [])
                if not (omitted and f["rule"] == "required" and "path_in_schema" in f["message"])]
    if bytes(buf[:4]) != parx.MAGIC:
        head = finding("head-magic", "", f"file does not start with PARX (found {bytes(buf[:4])!r})")
        findings.append(head.to_json())
    strict = not findings and not [n for n in inner.get("notes", []) if n["rule"] != "signature"]
    return {**inner, "size": report["size"], "magic": report["magic"], "findings": findings, "strict": strict,
            "parx": {**info, "error": None}}


def _magic(raw: Buffer) -> str | None:
    raw = bytes(raw)
    if len(raw) < 4:
        return None
    return raw.decode("ascii") if all(0x20 <= b < 0x7F for b in raw) else raw.hex()


def inspect_file(path: Path) -> dict[str, Any]:
    """Maps the file instead of reading it, so that only the tail and footer are touched."""
    with path.open("rb") as fh:
        if path.stat().st_size == 0:
            return {"file": str(path), **inspect_bytes(b"")}
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            return {"file": str(path), **inspect_bytes(buf)}


def format_text(report: Mapping[str, Any]) -> str:
    lines = [f"file: {report['file']} ({report['size']} bytes)",
             f"magic: head {report['magic']['head']}, tail {report['magic']['tail']}"]
    if "footer_length" in report:
        lines.append(f"footer: {report['footer_length']} bytes at offset {report['footer_offset']}")
    if report["valid"]:
        lines.append(f"FileMetaData: version {report['version']}, {report['num_rows']} rows, "
                     f"{report['row_groups']} row group(s), {report['columns']} leaf column(s), "
                     f"created_by {report['created_by']!r}")
        lines.append(f"page headers: {report['page_headers']}")
    if "structs" in report:
        lines.append("structs: " + ", ".join(f"{k} {v}" for k, v in report["structs"].items()))
        lines.append(f"extensions: {len(report['extensions'])}")
        for e in report["extensions"]:
            lines.append(f"  {e['path']} ({e['struct']}): header {e['header']}, {e['type']}, offset {e['offset']}, "
                         f"length {e['length']}, sha256 {e['sha256']}, uuid {e['uuid']}" + framing_text(e))
    if px := report.get("parx"):
        lines.append("PARX tail: " + ", ".join(f"{k} {v}" for k, v in px.items() if v is not None))
    if fb := report.get("flatbuffers_footer"):
        lines.append("FlatBuffers footer: " + ", ".join(f"{k} {v}" for k, v in fb.items() if v is not None))
    for level in ("notes", "findings"):
        if level in report:
            lines.append(f"{level}: {len(report[level])}")
            lines += [f"  {p['rule']}: {p['path'] + ': ' if p['path'] else ''}{p['message']}" for p in report[level]]
    if not report["valid"]:
        lines.append(f"error: {report['error']}")
    return "\n".join(lines)
