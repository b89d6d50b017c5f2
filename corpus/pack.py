"""`corpus pack`: a deterministic `parquet-conformance-corpus-<version>.tar.gz` (fixed mtimes, sorted members,
owner 0 and no names, gzip header without time or file name) and `SHA256SUMS`, so that anyone can rebuild a release
and compare (yaml-test-suite's dated data releases and Delta DAT's tarballs publish no checksums; we do). The corpus
is read without following a link, every file streamed; the archive and SHA256SUMS are written to temporary siblings
and renamed into place (kernel/trees.py), so that an interrupt leaves the old ones or the new ones.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import tarfile
import tempfile
import textwrap
from pathlib import Path, PurePosixPath

from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.dist import (
    MANIFEST,
    README,
    SUMS,
    DistError,
    archive_stem,
    corpus_files,
    find_root,
    read_manifest,
    read_sums,
    sha256_file,
    verify_tree,
)
from parquet_conformance.corpus.model import Manifest
from parquet_conformance.kernel import trees

MTIME = 0  # every member's mtime, and the gzip header's
KINDS = {  # what a kind says where no track says more (corpus/track.py Described)
    "golden": "the strict decoder accepts it",
    "nonconforming": "it decodes, but breaks a rule of the spec",
    "corrupt": "it does not decode",
    "regression": "a file found in the wild that broke a reader, kept as a permanent case",
}


def _tarinfo(name: str, size: int | None = None) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.mtime, info.uid, info.gid, info.uname, info.gname = MTIME, 0, 0, "", ""
    if size is None:
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    else:
        info.size, info.mode = size, 0o644
    return info


def pack(corpus: Path, out: Path) -> tuple[Path, str]:
    """Writes the archive and updates SHA256SUMS in `out`; returns the archive and its sha256."""
    root = find_root(corpus)
    root, manifest = read_manifest(root)
    problems = verify_tree(root, manifest)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise DistError(f"{root} does not match its manifest: {problems[0]}{more}; see `corpus verify`")
    stem = archive_stem(manifest)
    contents: dict[str, str | bytes] = {MANIFEST: MANIFEST, SUMS: SUMS, README: readme_text(manifest).encode()}
    contents.update({rel: rel for rel in corpus_files(manifest)})
    dirs = {str(parent) for rel in contents for parent in PurePosixPath(rel).parents if str(parent) != "."}
    # Sorted names put every directory right before its contents (a prefix sorts first).
    names = sorted([*contents, *dirs])
    trees.separate(out)  # not into a corpus (this one or another) or a results dataset: it would break them
    out.mkdir(parents=True, exist_ok=True)
    archive = out / f"{stem}.tar.gz"
    fd, tmp = tempfile.mkstemp(prefix=f".{archive.name}.", suffix=".tmp", dir=out)
    sums_tmp = None
    try:
        with open(fd, "wb") as raw, \
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=MTIME, compresslevel=9) as gz, \
                tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            tar.addfile(_tarinfo(stem))
            for name in names:
                member = f"{stem}/{name}"
                src = contents.get(name)
                if src is None:
                    tar.addfile(_tarinfo(member))
                elif isinstance(src, bytes):
                    tar.addfile(_tarinfo(member, len(src)), io.BytesIO(src))
                else:  # read below the corpus with no link followed, streamed by tarfile
                    with trees.open_below(root, src) as f:
                        tar.addfile(_tarinfo(member, os.fstat(f.fileno()).st_size), f)
        os.chmod(tmp, 0o644)
        digest = sha256_file(Path(tmp))
        sums_fd, sums_tmp = tempfile.mkstemp(prefix=f".{SUMS}.", suffix=".tmp", dir=out)
        with open(sums_fd, "w", encoding="utf-8") as f:
            f.write(sums_text(out, {archive.name: digest}))
        os.chmod(sums_tmp, 0o644)
        with trees.interrupts_deferred():  # the archive and its line in SHA256SUMS appear together
            os.replace(tmp, archive)
            os.replace(sums_tmp, out / SUMS)  # a link there is replaced, never written through
    finally:
        for left in (tmp, sums_tmp):
            if left is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(left)
    return archive, digest


def sums_text(out: Path, new: dict[str, str]) -> str:
    """SHA256SUMS of `out` in `sha256sum` format with `new`'s lines: it keeps the lines of other archives still
    present in `out`."""
    path = out / SUMS
    sums = {k: v for k, v in (read_sums(path) if path.is_file() else {}).items() if (out / k).is_file()}
    sums.update(new)
    return "".join(f"{digest}  {name}\n" for name, digest in sorted(sums.items()))


def readme_text(manifest: Manifest) -> str:
    gen = manifest.generator
    stem = archive_stem(manifest)
    kinds: dict[str, int] = {}
    for c in manifest.cases:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    built = [f"seed {manifest.seed}"]
    if manifest.only:
        built.append(f"only the cases matching {manifest.only!r}")
    if manifest.large:
        built.append("with the large (64 MiB, 128 MiB) cases")
    described = [t for n in manifest.tracks if (t := tracks.installed(n)) and isinstance(t, tracks.Described)]
    suffix = "|".join(dict.fromkeys(t.suffix for n in manifest.tracks if (t := tracks.installed(n)))) or ".<suffix>"
    intro = " ".join(t.archive_intro for t in described) or "Files that test how readers handle their formats."
    lines = [
        f"{stem}",
        "=" * len(stem),
        "",
        *textwrap.wrap(f"{intro} Each file comes with a machine-readable statement of what a reader must do with it.",
                       96),
        "",
        f"Written by {gen.get('name', 'parquet-conformance')} {gen['version']}"
        + (f" (bases written by pyarrow {gen['pyarrow']})" if "pyarrow" in gen else "") + f", {', '.join(built)}.",
        f"Tracks (wire formats): {', '.join(manifest.tracks)}; each case's \"track\" says which, its \"op\" what a",
        "reader is asked to do with the file (docs/manifest.md of parquet-conformance).",
        f"{len(manifest.cases)} cases ({', '.join(f'{n} {k}' for k, n in kinds.items())}) "
        f"from {len(manifest.bases)} bases.",
        "",
        "Layout",
        "------",
        "manifest.json              every case: id, title, kind, base, file, sha256, expectations, citations,",
        "                           the mutations that made it (schema: docs/manifest.md of",
        "                           parquet-conformance)",
        f"{'cases/<case id>' + suffix:<26} the files" + (f", e.g. {manifest.cases[0].file}" if manifest.cases else ""),
        f"{'bases/<base>' + suffix:<26} the unmodified files the cases start from",
        "expected/<base>.json       the data a reader must return, in an implementation-neutral form",
        "",
        "What a reader must do",
        "---------------------",
        "Each case names, in manifest.json under \"expect\", one word per reader role:",
        "",
    ]
    lines += [f"  {word:<8} {meaning}" for word, meaning in manifest.expectations.items()]
    lines += [
        "",
        "Under every word, a crash, a hang, or data other than the base data is a failure. \"The base",
        "data\" is expected/<base>.json; a reader whose representation differs from it (say, NaN for a",
        f"null float) may instead be compared with its own reading of bases/<base>{suffix} (its",
        "baseline), which the case base/<base> checks against expected/<base>.json once.",
        "",
        "Roles:",
        "",
    ]
    lines += [f"  {role:<16} {text}" for role, text in manifest.roles.items()]
    if any(role.startswith("aware:") for role in manifest.roles):
        lines += ["  aware:<profile>  a reader that implements an extension profile; where a case names no",
                  "                   expectation for it, the legacy one applies"]
    lines += [
        "",
        "Kinds (what the strict decoder of parquet-conformance concludes about the file):",
        "",
    ]
    kinds_text = {**KINDS, **{k: v for t in described for k, v in t.kinds.items()}}
    lines += [f"  {kind:<14} {text}" for kind, text in kinds_text.items()]
    lines += [
        "",
        "Expected data",
        "-------------",
        "expected/<base>.json is {\"columns\": [names], \"rows\": [[value, ...], ...]}; values are typed",
        "tokens, so that every implementation can compare exactly:",
        "",
        "  null, true, false      themselves",
        "  \"text\"                 a JSON string is UTF-8 text",
        "  {\"int\": \"42\"}          an integer of any width",
        "  {\"float\": \"1.5\"}       Python repr of the double, or \"nan\", \"inf\", \"-inf\", \"-0.0\"",
        "  {\"bin\": \"00ff\"}        binary, as hex",
        "  {\"dec\": \"12.34\"}       a decimal, at the column's scale",
        "  {\"date\": \"2001-02-03\"} a date",
        "  {\"ts_ns\": \"981173106000000000\"}  a timestamp, nanoseconds since 1970-01-01 as written",
        "  {\"time_ns\": \"1000\"}     a time of day, nanoseconds since midnight",
        "  {\"uuid\": \"...\"}         a UUID, lowercase with hyphens",
        "  [...]                  a list",
        "  {\"struct\": {...}}      a struct, field name -> value",
        "",
        "The base's \"data_hash\" in manifest.json is the sha256 of its expected data as canonical JSON",
        "(sorted keys, no spaces, ASCII).",
        "",
        "Verifying",
        "---------",
        f"The archive:      sha256sum -c {SUMS}       (in the directory holding both)",
        "Every file:       parquet-conformance corpus verify DIR",
        "or, without parquet-conformance, in this directory:",
        "",
        "  jq -r '(.cases[], .bases[]) | \"\\(.sha256)  \\(.file)\"' manifest.json | sha256sum -c -",
        "",
        "Running a reader against the corpus: parquet-conformance's pytest plugin",
        "(pytest --parquet-conformance-corpus DIR --parquet-conformance-adapter-cmd 'your worker')",
        "or `parquet-conformance run --corpus DIR`; the worker protocol is docs/adapter-protocol.md.",
        "",
    ]
    return "\n".join(lines)
