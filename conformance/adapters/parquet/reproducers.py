"""The scripts of `report --upstream` for the Parquet adapters (Adapter.reproducer): each reads a finding's file
with the library's own public API, as the adapter's `read` does, and imports nothing of ours. The skeletons are in
repro/ (one per language, or per library where its results need the library's schema to become plain values);
each adapter fills in how it calls its library, next to its `read`.

A script holds nothing of a finding: it reads the finding's data (what the spec requires, the columns compared, the
time limit, the library's declared refusals) from finding.json beside it, so that no title, name or value from
outside is ever written into source code. Each carries the error taxonomy's rule in its language (the same rule the
workers apply: the Java rule's class and the Node rule's functions are copied in from java/ and js/ as they are)."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from parquet_conformance.conformance.adapters.reproducing import Reproducer

TEMPLATES = Path(__file__).parent / "repro"
JAVA_ERRORS = Path(__file__).parent / "java" / "JavaErrors.java"
JS = Path(__file__).parent / "js"

# What the Python skeleton's `data` is for a library that hands its result over as Arrow: temporal values come from
# their integers (as generators/canonical.py reads them), so no Python date range limits what can be compared.
ARROW_DATA = '''def data(result):
    """(column names, row count, one column's values) of what the reader returned, through Arrow."""
    table = @@ARROW@@
    return table.column_names, table.num_rows, lambda name: arrow_values(table.column(name))


UNIT_NS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def arrow_values(column):
    """A column's Python values; timestamps, dates and times from their integers (no date range limits them)."""
    t = column.type
    if pa.types.is_timestamp(t):
        return [None if v is None else Instant(v * UNIT_NS[t.unit]) for v in column.cast(pa.int64()).to_pylist()]
    if pa.types.is_date32(t):
        return [None if v is None else Days(v) for v in column.cast(pa.int32()).to_pylist()]
    if pa.types.is_date64(t):
        return [None if v is None else Days(v // 86_400_000) for v in column.cast(pa.int64()).to_pylist()]
    if pa.types.is_time(t):
        ints = column.cast(pa.int32() if t.bit_width == 32 else pa.int64()).to_pylist()
        return [None if v is None else TimeOfDay(v * UNIT_NS[t.unit]) for v in ints]
    return column.to_pylist()'''


def python(library: str, imports: str, version: str, read: str, install: str, arrow: str = "result",
           data: str = ARROW_DATA, errors: str = "", not_compared: dict[str, str] | None = None) -> Reproducer:
    """`read`: the body of read(path) (the library's call); `arrow`: the expression that makes the pyarrow Table of
    its `result`, for the default `data`; `version`: the expression of the library's version; `errors`: code after
    the taxonomy's rule (a library whose errors carry another runtime's, as Spark's carry the JVM's, redefines
    `lost_control` there)."""
    text = (TEMPLATES / "python.tmpl").read_text(encoding="utf-8")
    text = text.replace("@@DATA@@", data.replace("@@ARROW@@", arrow)).replace("@@IMPORTS@@", _indent(imports))
    text = text.replace("@@INSTALL@@", repr(install.splitlines()[0]))
    text = text.replace("@@READ@@", _indent(read)).replace("@@LIBRARY@@", library).replace("@@ERRORS@@", errors)
    text = text.replace("{VERSION}", "{" + version + "}")
    return Reproducer(language="Python", script="repro.py", text=text, install=install, run="python repro.py",
                      not_compared=not_compared or {})


def copied(functions: tuple[Callable[..., Any], ...] = (), **constants: object) -> str:
    """An adapter's own constants and functions as a script's source (inspect), so that the script converts what the
    library returns as the adapter does, with the same code rather than a copy kept by hand."""
    lines = [f"{name} = {literal(value)}" for name, value in constants.items()]
    return "\n".join(lines) + "\n\n\n" + "\n\n".join(inspect.getsource(f) for f in functions)


def literal(value: object) -> str:
    """A constant as Python source, the same in every process (a set's members sorted: its repr is not)."""
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(repr(v) for v in sorted(value)) + "}" if value else "set()"
    return repr(value)


# A Python script over a JVM library (Spark): the JVM's error rule, java/JavaErrors.java, compiled at first use and
# asked about the Java throwable a Py4JJavaError or a pyspark exception carries, as the adapter asks it.
JVM_ERRORS = '''JAVA_ERRORS = @@SOURCE@@  # parquet-conformance's rule for JVM readers (java/JavaErrors.java)


def java_errors_classpath():
    """A folder holding JavaErrors.class, compiled here with the JDK's javac (None: no javac)."""
    import shutil
    import subprocess
    import tempfile

    javac = shutil.which("javac")
    if javac is None:
        return None
    folder = tempfile.mkdtemp(prefix="repro-java-errors-")
    Path(folder, "JavaErrors.java").write_text(JAVA_ERRORS)
    done = subprocess.run([javac, "-d", folder, str(Path(folder, "JavaErrors.java"))], capture_output=True)
    return folder if done.returncode == 0 else None


python_lost_control = lost_control


def lost_control(error):
    """The JVM's rule on the Java throwable the error carries; Python's rule on any other error."""
    throwable = getattr(error, "java_exception", None) or getattr(error, "_origin", None)
    if throwable is None:
        return python_lost_control(error)
    if SESSION is None or not JVM_RULE:
        print("CANNOT JUDGE: no JDK's javac here to compile the JVM's error rule (java_errors_classpath)")
        sys.exit(2)
    kind = str(SESSION.sparkContext._jvm.JavaErrors.outcome(throwable))
    return None if kind == "rejected" else f"{kind}, by the JVM's rule: {throwable.getClass().getName()}"'''


def java(name: str, install: str, run: str) -> Reproducer:
    """A Java program in two files: the launcher (repro/NAME.tmpl, Repro.java), which checks the classpath for what
    the reading program imports (exit 2 naming what to install: Java's source launcher would fail to compile, exit 1,
    a missing jar's "reproduces") and runs it; and the reading program (repro/NAME-read.tmpl, ReproRead.java), with the
    JVM's error rule (java/JavaErrors.java) as a nested class."""
    first = install.splitlines()[0].split("  #")[0]  # the install command, without its comment
    launcher = (TEMPLATES / f"{name}.tmpl").read_text(encoding="utf-8").replace("@@INSTALL@@", json.dumps(first))
    program = (TEMPLATES / f"{name}-read.tmpl").read_text(encoding="utf-8").replace("@@JAVA_ERRORS@@", java_errors())
    return Reproducer(language="Java", script="Repro.java", text=launcher, install=install, run=run,
                      companions={"ReproRead.java": program})


def node(name: str, worker: str, install: str, read: tuple[str, ...] = ()) -> Reproducer:
    """A Node skeleton (repro/NAME), with the worker's declared refusals (js/WORKER) and the rule (js/shared.mjs), the
    plain values (repro/plain.mjs, after shared.mjs's dateText), and `read`: the worker's own declarations that read
    the file and make its values tokens, copied in."""
    rule = js_declarations(JS / "shared.mjs", ("SAFETY_NETS", "isAssertion", "messageOf", "classOf", "outcomeOf"))
    refusals = js_declarations(JS / worker, ("REFUSALS",))
    plain = js_declarations(JS / "shared.mjs", ("dateText",)) + "\n\n" + (TEMPLATES / "plain.mjs").read_text(
        encoding="utf-8")
    text = (TEMPLATES / name).read_text(encoding="utf-8").replace("@@RULE@@", f"{refusals}\n\n{rule}").replace(
        "@@PLAIN@@", plain)
    text = text.replace("@@READ@@", js_declarations(JS / worker, read)).replace("@@INSTALL@@", json.dumps(install))
    return Reproducer(language="JavaScript", script="repro.mjs", text=text, install=install, run="node repro.mjs")


def java_errors() -> str:
    """JavaErrors.java as a nested class: its imports dropped (the skeleton imports java.util's), indented."""
    source = JAVA_ERRORS.read_text(encoding="utf-8")
    body = source[source.index("public final class JavaErrors"):].replace(
        "public final class JavaErrors", "static final class JavaErrors", 1)
    return "\n".join(("  " + line).rstrip() for line in body.rstrip().splitlines())


def js_declarations(path: Path, names: tuple[str, ...]) -> str:
    """Top-level declarations of a module, by name, as they are (`export` dropped): from the line that declares one
    (`const`, `let`, `function`, `async function`) to the line where its brackets balance again."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for name in names:
        start = next((i for i, ln in enumerate(lines)
                      if re.match(rf"(export )?(async )?(const|let|function) {name}\b", ln)), None)
        if start is None:
            raise ValueError(f"{path.name} declares no {name} (the reproducers copy it)")
        depth, end = 0, start
        for end in range(start, len(lines)):
            code = re.sub(r"'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`|//.*$", "", lines[end])  # no strings, no comments
            depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
            if depth <= 0:
                break
        out.append("\n".join(lines[start:end + 1]).removeprefix("export "))
    return "\n".join(out)


def _indent(body: str) -> str:
    return "\n".join("    " + line if line else line for line in body.strip("\n").splitlines())
